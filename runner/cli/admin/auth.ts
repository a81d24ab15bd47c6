// `bcs auth`: auth connections (`/auth/connections`), which keep a browser profile logged in to a site.
// Scenarios start logged in from one with `browser: { auth: ID }`; `bcs auth login` runs a login now and
// follows it (auth-login.ts).
import type { Command } from 'commander';
import type { ConnectionCreateParams, ManagedAuth, TimelineEvent } from '../../../src/api/index.js';
import { HEALTH_CHECK_MAX_SECONDS, HEALTH_CHECK_MIN_SECONDS } from '../../../src/api/schemas/auth-connections.js';
import { connectionPath } from '../../exec/login-flow.js';
import { followLogin } from './auth-login.js';
import { adminAction, adminFlags, fields, table, type Finish, when, wholeNumber } from './output.js';

interface CreateFlags {
  domain: string;
  profile: string;
  loginUrl?: string;
  credential?: string;
  autoReauth?: boolean;
  healthCheckInterval?: string;
}

export function registerAuth(program: Command, finish: Finish): void {
  const auth = program.command('auth').description('manage auth connections: browser profiles kept logged in to a site');

  adminFlags(auth.command('create').description('create an auth connection (and its profile when the project has none of that name)'))
    .requiredOption('--domain <domain>', 'the site to stay logged in to, e.g. example.com')
    .requiredOption('--profile <name>', 'the browser profile that holds the login')
    .option('--login-url <url>', 'where the login starts (default: the domain\'s home page)')
    .option('--credential <name>', 'the credential (`bcs credentials create`) to log in with; without one, a login asks a person')
    .option('--auto-reauth', 'log in again on its own when a health check finds the login gone')
    .option('--health-check-interval <seconds>', `how often to check the login is still there (${HEALTH_CHECK_MIN_SECONDS}-${HEALTH_CHECK_MAX_SECONDS}; default 3600)`)
    .action(
      adminAction(finish, async (admin, o: CreateFlags) => {
        const body: ConnectionCreateParams = { domain: o.domain, profile_name: o.profile };
        if (o.loginUrl !== undefined) body.login_url = o.loginUrl;
        if (o.credential !== undefined) body.credential = { name: o.credential };
        if (o.autoReauth) body.auto_reauth = true;
        if (o.healthCheckInterval !== undefined) {
          body.health_check_interval = wholeNumber(o.healthCheckInterval, '--health-check-interval', HEALTH_CHECK_MIN_SECONDS, HEALTH_CHECK_MAX_SECONDS);
        }
        const c = await admin.call<ManagedAuth>('POST', '/auth/connections', { body });
        admin.print(c, () => `created auth connection ${c.id} for ${c.domain} (profile ${c.profile_name}): ${c.status}; log in with \`bcs auth login ${c.id}\``);
      }),
    );

  adminFlags(auth.command('list').description('list auth connections'))
    .option('--domain <domain>', 'only connections for this domain')
    .option('--profile <name>', 'only connections with this profile')
    .action(
      adminAction(finish, async (admin, o: { domain?: string; profile?: string }) => {
        const rows = await admin.list<ManagedAuth>('/auth/connections', { domain: o.domain, profile_name: o.profile });
        admin.print(rows, (list) =>
          table(
            ['ID', 'DOMAIN', 'PROFILE', 'STATUS', 'FLOW', 'CREDENTIAL', 'LAST LOGIN'],
            list.map((c) => [c.id, c.domain, c.profile_name, c.status, flowOf(c), credentialOf(c), when(c.last_auth_at)]),
          ),
        );
      }),
    );

  adminFlags(auth.command('get').description('show an auth connection and its login flow').argument('<id>', 'the connection')).action(
    adminAction(finish, async (admin, id: string) => {
      const c = await admin.call<ManagedAuth>('GET', connectionPath(id));
      admin.print(c, () => [
        `auth connection ${c.id}`,
        ...fields([
          ['domain', c.domain],
          ['profile', c.profile_name],
          ['status', c.status],
          ['flow', flowOf(c)],
          ...(c.error_code ? ([['error', `${c.error_code}: ${c.error_message ?? ''}`]] as [string, string][]) : []),
          ...(c.hosted_url ? ([['complete at', c.hosted_url]] as [string, string][]) : []),
          ['credential', credentialOf(c)],
          ['login URL', c.login_url],
          ['after login', c.post_login_url],
          ['re-login', c.auto_reauth ? `automatic${c.can_reauth === false ? ` (not possible now: ${c.can_reauth_reason})` : ''}` : 'no'],
          ['health checks', c.health_checks ? `every ${c.health_check_interval ?? 3600} s, last ${when(c.last_auth_check_at)}` : 'off'],
          ['last login', when(c.last_auth_at)],
        ]),
      ]);
    }),
  );

  adminFlags(auth.command('delete').description('delete an auth connection (a login in progress is cancelled; the profile stays)').argument('<id>', 'the connection')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', connectionPath(id));
      admin.print({ id, deleted: true }, () => `deleted auth connection ${id}`);
    }),
  );

  adminFlags(auth.command('login').description('log a connection in now and follow the login; exits 0 once logged in').argument('<id>', 'the connection')).action(
    adminAction(finish, (admin, id: string) => followLogin(admin, id)),
  );

  adminFlags(auth.command('timeline').description("a connection's logins, re-logins and health checks, newest first").argument('<id>', 'the connection')).action(
    adminAction(finish, async (admin, id: string) => {
      const rows = await admin.list<TimelineEvent>(`${connectionPath(id)}/timeline`);
      admin.print(rows, (list) =>
        table(
          ['WHEN', 'TYPE', 'STATUS', 'STEP', 'ERROR'],
          list.map((e) => [when(e.timestamp), e.type, e.status, e.step, e.error_code ? `${e.error_code}${e.error_message ? `: ${e.error_message}` : ''}` : '']),
        ),
      );
    }),
  );
}

/** `SUCCESS`, `IN_PROGRESS AWAITING_INPUT`, or `-` before any flow. */
function flowOf(c: ManagedAuth): string {
  if (!c.flow_status) return '-';
  return c.flow_status === 'IN_PROGRESS' && c.flow_step ? `${c.flow_status} ${c.flow_step}` : c.flow_status;
}

function credentialOf(c: ManagedAuth): string | undefined {
  const cred = c.credential;
  if (!cred) return undefined;
  if (cred.name) return cred.name;
  return cred.provider ? `${cred.provider}:${cred.auto ? '(auto)' : (cred.path ?? '')}` : undefined;
}

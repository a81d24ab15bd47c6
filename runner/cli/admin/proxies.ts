// `bcs proxies`: proxy configurations (`/proxies`) that browsers route through with `proxy: { name }`.
// A custom proxy's password is read from an environment variable or stdin, never from an argument (which
// any user can read in the process list), and is never printed: the API only ever answers `has_password`.
import type { Command } from 'commander';
import type { Proxy, ProxyCreateParams, ProxyType } from '../../../src/api/index.js';
import { UsageError } from '../usage-error.js';
import { adminAction, adminFlags, segment, table, type Finish, when, wholeNumber } from './output.js';
import { fromEnv, readStdin } from './secret-input.js';

const TYPES: ProxyType[] = ['custom', 'datacenter', 'isp', 'residential', 'mobile'];

interface CreateFlags {
  type: string;
  name?: string;
  host?: string;
  port?: string;
  username?: string;
  passwordEnv?: string;
  passwordStdin?: boolean;
  protocol?: string;
  bypass?: string[];
  country?: string;
}

export function registerProxies(program: Command, finish: Finish): void {
  const proxies = program.command('proxies').description('manage proxy configurations');

  adminFlags(proxies.command('list').description('list proxies')).action(
    adminAction(finish, async (admin) => {
      const rows = await admin.list<Proxy>('/proxies');
      admin.print(rows, (list) =>
        table(['ID', 'NAME', 'TYPE', 'ADDRESS', 'STATUS', 'CHECKED'], list.map((p) => [p.id, p.name, p.type, address(p), p.status ?? 'unchecked', when(p.last_checked)])),
      );
    }),
  );

  adminFlags(proxies.command('create').description('create a proxy (custom: your own proxy server at --host:--port)'))
    .option('--type <type>', `one of ${TYPES.join(', ')}`, 'custom')
    .option('--name <name>', 'a name for it (browsers select it with proxy: { name })')
    .option('--host <host>', 'custom: the proxy server host')
    .option('--port <port>', 'custom: the proxy server port')
    .option('--username <user>', 'custom: the user name to authenticate with')
    .option('--password-env <var>', 'custom: read the password from this environment variable')
    .option('--password-stdin', 'custom: read the password from stdin (a trailing newline is dropped)')
    .option('--protocol <protocol>', 'http or https: how to talk to the proxy server')
    .option('--bypass <host>', 'a host to reach directly, not through the proxy (repeatable)', (v: string, l: string[] = []) => [...l, v])
    .option('--country <code>', 'hosted proxy types: the exit country (ISO 3166 alpha-2)')
    .action(
      adminAction(finish, async (admin, o: CreateFlags) => {
        const body = await createBody(o);
        if (body.config?.password) admin.secrets.push(body.config.password);
        const proxy = await admin.call<Proxy>('POST', '/proxies', { body });
        admin.print(proxy, (p) => `created proxy ${p.name ?? '(unnamed)'} (id ${p.id}, ${p.type}${address(p) ? ` ${address(p)}` : ''})`);
      }),
    );

  adminFlags(proxies.command('check').description('check that a proxy works; exits 1 when it is unavailable').argument('<id>', 'the proxy'))
    .option('--url <url>', 'reach this http(s) URL through the proxy instead of the default target')
    .action(
      adminAction(finish, async (admin, id: string, o: { url?: string }) => {
        const proxy = await admin.call<Proxy>('POST', `/proxies/${segment(id)}/check`, { body: o.url ? { url: o.url } : {} });
        admin.print(proxy, (p) => `proxy ${p.name ?? p.id}: ${p.status ?? 'unchecked'}${p.status_detail ? ` (${p.status_detail})` : ''}`);
        return proxy.status === 'available' ? 0 : 1;
      }),
    );

  adminFlags(proxies.command('delete').description('delete a proxy').argument('<id>', 'the proxy')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', `/proxies/${segment(id)}`);
      admin.print({ id, deleted: true }, () => `deleted proxy ${id}`);
    }),
  );
}

function address(p: Proxy): string {
  if (p.config.host) return `${p.config.username ? `${p.config.username}@` : ''}${p.config.host}:${p.config.port ?? ''}`;
  return p.config.country ?? '';
}

async function createBody(o: CreateFlags): Promise<ProxyCreateParams> {
  if (!(TYPES as string[]).includes(o.type)) throw new UsageError(`--type must be one of ${TYPES.join(', ')}, got '${o.type}'`);
  const type = o.type as ProxyType;
  const body: ProxyCreateParams = { type };
  if (o.name !== undefined) body.name = o.name;
  if (o.protocol !== undefined) {
    if (o.protocol !== 'http' && o.protocol !== 'https') throw new UsageError(`--protocol must be http or https, got '${o.protocol}'`);
    body.protocol = o.protocol;
  }
  if (o.bypass?.length) body.bypass_hosts = o.bypass;
  const config: NonNullable<ProxyCreateParams['config']> = {};
  if (type === 'custom') {
    if (!o.host || o.port === undefined) throw new UsageError('a custom proxy needs --host and --port');
    config.host = o.host;
    config.port = wholeNumber(o.port, '--port', 1, 65535);
    if (o.username !== undefined) config.username = o.username;
    const password = await readPassword(o);
    if (password !== undefined) config.password = password;
  } else {
    for (const flag of ['host', 'port', 'username', 'passwordEnv', 'passwordStdin'] as const) {
      if (o[flag] !== undefined) throw new UsageError(`--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to custom proxies only`);
    }
  }
  if (o.country !== undefined) config.country = o.country;
  if (Object.keys(config).length) body.config = config;
  return body;
}

async function readPassword(o: CreateFlags): Promise<string | undefined> {
  if (o.passwordEnv !== undefined && o.passwordStdin) throw new UsageError('use --password-env or --password-stdin, not both');
  if (o.passwordEnv !== undefined) return fromEnv('--password-env', o.passwordEnv);
  if (!o.passwordStdin) return undefined;
  // Piped in, e.g. from a secret manager.
  const value = (await readStdin('--password-stdin', 'printenv PROXY_PASSWORD | bcs proxies create ... --password-stdin')).replace(/\r?\n$/, '');
  if (!value) throw new UsageError('--password-stdin: nothing was read from stdin');
  return value;
}

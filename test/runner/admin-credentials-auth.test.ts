// `bcs credentials` and `bcs auth` against a real service and a real login site: credential values taken
// from environment variables and from stdin, and never printed by any command (nor echoed by a mistake on
// the command line); their keys listed, changed and removed; TOTP codes; auth connections created, logged
// in by following the flow to its end (and failing with the site's reason), listed and shown, with --json
// printing the API's shapes.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliResult } from '../helpers/cli.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { startTestService, type TestService } from '../helpers/service.js';

const USER = 'ada@example.test';
const PASSWORD = 'lovelace-1815-Secret';
const OTHER_PASSWORD = 'hopper-1906-Secret';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
/** Everything any command printed, to check no secret is among it. */
const printed: string[] = [];

let svc: TestService;
let site: LoginSite;

beforeAll(async () => {
  [svc, site] = await Promise.all([startTestService(), startLoginSite({ variant: 'basic', users: { [USER]: { password: PASSWORD } } })]);
});
afterAll(async () => {
  await svc?.close();
  await site?.close();
});

const target = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function bcs(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const res = await runCli(args, { ...target(), ...env });
  printed.push(res.stdout, res.stderr);
  return res;
}

/** `bcs ARGS` with `input` piped to its stdin. */
async function bcsWithStdin(args: string[], input: string): Promise<CliResult> {
  const { child, done } = startCli(args, target(), { stdin: 'pipe' });
  child.stdin!.end(input);
  const res = await done;
  printed.push(res.stdout, res.stderr);
  return res;
}

const json = (res: CliResult) => {
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

describe('bcs credentials', () => {
  it('creates from environment variables and from stdin, lists, shows, changes and deletes, never printing a value', { timeout: 180_000 }, async () => {
    const fromEnv = await bcs(['credentials', 'create', 'ada', '--domain', '127.0.0.1', '--value', 'username=ADA_USER', '--value', 'password=ADA_PASSWORD'], {
      ADA_USER: USER,
      ADA_PASSWORD: PASSWORD,
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toMatch(/^created credential ada \(id \S+\) for 127\.0\.0\.1: values username, password\n$/);

    const piped = await bcsWithStdin(
      ['credentials', 'create', 'grace', '--domain', 'example.test', '--values-stdin', '--sso-provider', 'google', '--json'],
      JSON.stringify({ email: 'grace@example.test', password: OTHER_PASSWORD }),
    );
    const grace = json(piped);
    expect(grace).toMatchObject({ name: 'grace', domain: 'example.test', sso_provider: 'google', has_values: true, has_totp_secret: false });
    expect(grace.value_keys.sort()).toEqual(['email', 'password']);
    expect(grace.values).toBeUndefined();

    const list = await bcs(['credentials', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+DOMAIN\s+VALUES\s+TOTP\s+SSO\s+UPDATED$/);
    expect(list.stdout).toMatch(/^\S+\s+ada\s+127\.0\.0\.1\s+yes\s+no\s+-\s+\d{4}-/m);
    expect(list.stdout).toMatch(/^\S+\s+grace\s+example\.test\s+yes\s+no\s+google\s+/m);
    expect(json(await bcs(['credentials', 'list', '--domain', 'example.test', '--json'])).map((c: { name: string }) => c.name)).toEqual(['grace']);
    expect(json(await bcs(['credentials', 'list', '--query', 'ad', '--json'])).map((c: { name: string }) => c.name)).toEqual(['ada']);

    const shown = await bcs(['credentials', 'get', 'ada']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^credential ada \(id \S+\)\n {2}domain {8}127\.0\.0\.1\n {2}values {8}username, password\n {2}TOTP secret {3}no\n/);

    // Values merged after the removals, a TOTP secret from the environment, a new name.
    const updated = json(
      await bcs(['credentials', 'update', 'grace', '--remove-key', 'email', '--value', 'username=GRACE_USER', '--totp-secret-env', 'GRACE_TOTP', '--rename', 'grace-hopper', '--json'], {
        GRACE_USER: 'grace-h',
        GRACE_TOTP: TOTP_SECRET,
      }),
    );
    expect(updated).toMatchObject({ name: 'grace-hopper', has_totp_secret: true });
    expect(updated.value_keys.sort()).toEqual(['password', 'username']);

    const code = json(await bcs(['credentials', 'totp', 'grace-hopper', '--json']));
    expect(Object.keys(code).sort()).toEqual(['code', 'expires_at']);
    const totp = new TOTP({ secret: Secret.fromBase32(TOTP_SECRET) });
    expect(totp.validate({ token: code.code, window: 1 })).not.toBeNull();
    const readable = await bcs(['credentials', 'totp', 'grace-hopper']);
    expect(readable.stdout).toMatch(/^\d{6} {2}\(valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ, \d+ s from now\)\n$/);

    const removed = await bcs(['credentials', 'delete', 'grace-hopper']);
    expect([removed.code, removed.stdout]).toEqual([0, 'deleted credential grace-hopper\n']);
    expect((await bcs(['credentials', 'get', 'grace-hopper'])).code).toBe(1);

    for (const secret of [PASSWORD, OTHER_PASSWORD, TOTP_SECRET]) for (const text of printed) expect(text).not.toContain(secret);
  });

  it('refuses values on the command line or in a broken pipe without repeating them', { timeout: 120_000 }, async () => {
    // A value typed where the variable's name goes.
    const typed = await bcs(['credentials', 'create', 'typo', '--domain', 'x.test', '--value', 'password=hunter2-literally']);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toBe('bcs: --value password=…: after = comes the name of an environment variable holding the value (letters, digits and _), never the value itself\n');
    const unset = await bcs(['credentials', 'create', 'typo', '--domain', 'x.test', '--value', 'password=NOT_SET_ANYWHERE']);
    expect([unset.code, unset.stderr]).toEqual([2, 'bcs: --value password=…: the environment variable named there is not set or empty\n']);
    const broken = await bcsWithStdin(['credentials', 'create', 'typo', '--domain', 'x.test', '--values-stdin'], '{"password": hunter2-literally}');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/^bcs: --values-stdin: stdin is not JSON/);
    const nothing = await bcs(['credentials', 'update', 'ada']);
    expect(nothing.code).toBe(2);
    for (const text of printed) expect(text).not.toContain('hunter2-literally');
    expect((await bcs(['credentials', 'get', 'typo'])).code).toBe(1);
  });
});

describe('bcs auth', () => {
  it('creates a connection, logs it in by following the flow, and shows it in lists, details and the timeline', { timeout: 180_000 }, async () => {
    expect((await bcs(['credentials', 'create', 'site-login', '--domain', '127.0.0.1', '--value', 'username=U', '--value', 'password=P'], { U: USER, P: PASSWORD })).code).toBe(0);
    const created = json(
      await bcs(['auth', 'create', '--domain', '127.0.0.1', '--profile', 'cli-login', '--login-url', site.loginUrl, '--credential', 'site-login', '--health-check-interval', '7200', '--json']),
    );
    expect(created).toMatchObject({ domain: '127.0.0.1', profile_name: 'cli-login', status: 'NEEDS_AUTH', credential: { name: 'site-login' }, health_check_interval: 7200 });
    const id = created.id as string;

    const login = await bcs(['auth', 'login', id]);
    expect(login.code, login.stderr).toBe(0);
    const lines = login.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^LOGIN flow started for auth connection ${id} \\(it expires at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\)$`));
    expect(lines).toContain('IN_PROGRESS DISCOVERING');
    expect(lines.at(-2)).toBe('SUCCESS');
    expect(lines.at(-1)).toBe(`auth connection ${id} is AUTHENTICATED (profile cli-login); scenarios start logged in with browser: { auth: ${id} }`);
    expect(site.logins).toHaveLength(1);

    const list = await bcs(['auth', 'list', '--domain', '127.0.0.1']);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+DOMAIN\s+PROFILE\s+STATUS\s+FLOW\s+CREDENTIAL\s+LAST LOGIN$/);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+127\\.0\\.0\\.1\\s+cli-login\\s+AUTHENTICATED\\s+SUCCESS\\s+site-login\\s+\\d{4}-`, 'm'));
    expect(json(await bcs(['auth', 'list', '--profile', 'nobody', '--json']))).toEqual([]);
    const details = json(await bcs(['auth', 'get', id, '--json']));
    expect(details).toMatchObject({ id, status: 'AUTHENTICATED', flow_status: 'SUCCESS', post_login_url: site.accountUrl });
    const shown = await bcs(['auth', 'get', id]);
    expect(shown.stdout).toContain(`  after login    ${site.accountUrl}\n`);
    const timeline = json(await bcs(['auth', 'timeline', id, '--json']));
    expect(timeline[0]).toMatchObject({ type: 'login', status: 'SUCCESS', step: 'COMPLETED' });
    expect((await bcs(['auth', 'timeline', id])).stdout).toMatch(/^\d{4}-\S+ \S+\s+login\s+SUCCESS\s+COMPLETED\s+-$/m);

    const deleted = await bcs(['auth', 'delete', id]);
    expect([deleted.code, deleted.stdout]).toEqual([0, `deleted auth connection ${id}\n`]);
    expect((await bcs(['auth', 'get', id])).code).toBe(1);
    for (const text of printed) expect(text).not.toContain(PASSWORD);
  });

  it('exits 1 with the site\'s reason when the login fails; --json keeps stdout for the connection', { timeout: 120_000 }, async () => {
    expect((await bcs(['credentials', 'create', 'wrong', '--domain', '127.0.0.1', '--value', 'username=U', '--value', 'password=P'], { U: USER, P: 'not-the-password' })).code).toBe(0);
    const c = json(await bcs(['auth', 'create', '--domain', '127.0.0.1', '--profile', 'cli-wrong', '--login-url', site.loginUrl, '--credential', 'wrong', '--json']));
    const login = await bcs(['auth', 'login', c.id, '--json']);
    expect(login.code).toBe(1);
    expect(JSON.parse(login.stdout)).toMatchObject({ id: c.id, status: 'NEEDS_AUTH', flow_status: 'FAILED', error_code: 'invalid_credentials' });
    expect(login.stderr).toContain('IN_PROGRESS DISCOVERING\n');
    expect(login.stderr).toMatch(/^bcs: the login flow of auth connection \S+ ended FAILED: invalid_credentials: .*Invalid username or password$/m);
  });
});

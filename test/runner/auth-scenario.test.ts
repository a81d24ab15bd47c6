// `browser: { auth }` end to end: a real login site, a credential and auth connections made through the
// service's API, and scenarios run by the real CLI. The first run logs the connection in (a flow in a
// browser of the service's) and starts its browser from the saved profile; the next starts logged in with
// no new login; a wrong password fails the run as infrastructure with the flow's error; and a connection
// with nothing to log in with waits for a person, says where, and goes on once the input comes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const USER = 'ada@example.test';
const PASSWORD = 'lovelace-1815';

interface Step {
  kind: string;
  name: string;
  phase: string;
  status: string;
  note?: string;
  output?: Record<string, unknown>;
  error?: { kind: string; message: string; location: string };
}

let svc: TestService;
let site: LoginSite;
const project = await inlineFiles({});

beforeAll(async () => {
  [svc, site] = await Promise.all([startTestService(), startLoginSite({ variant: 'basic', users: { [USER]: { password: PASSWORD } } })]);
});
afterAll(async () => {
  await svc?.close();
  await site?.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

/** A connection to the login site for `profile`, logging in with a credential holding `password` (none: nothing to log in with). */
async function connection(profile: string, password?: string): Promise<string> {
  let credential: { name: string } | undefined;
  if (password !== undefined) {
    const made = await svc.call('POST', '/credentials', { body: { domain: '127.0.0.1', name: `cred-${profile}`, values: { username: USER, password } } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    credential = { name: `cred-${profile}` };
  }
  const body = { domain: '127.0.0.1', profile_name: profile, login_url: site.loginUrl, save_credentials: false, ...(credential ? { credential } : {}) };
  const c = await svc.call('POST', '/auth/connections', { body });
  expect(c.status, JSON.stringify(c.body)).toBe(200);
  return c.body.id as string;
}

const scenario = (name: string, auth: string) => [
  `name: ${name}`,
  'browser:',
  `  auth: ${auth}`,
  'steps:',
  `  - goto: "${site.accountUrl}"`,
  `  - expect: { text: "Welcome, ${USER}" }`,
  '',
].join('\n');

/** Starts `bcs run` on `<name>.yaml` (list and JSON reporters); `results()` reads what it wrote. */
async function start(name: string, yaml: string) {
  await project.write({ [`${name}.yaml`]: yaml });
  const out = `${name}-out`;
  const run = startCli(['run', `${name}.yaml`, '--reporter', 'list,json', '--output-dir', out], remote(), { cwd: project.dir });
  let printed = '';
  run.child.stdout!.on('data', (d) => (printed += d));
  const results = async () => {
    const text = await readFile(join(project.dir, out, 'results.json'), 'utf8');
    const s = JSON.parse(text).scenarios[0] as { status: string; steps: Step[]; session_id?: string };
    return { status: s.status, steps: s.steps, sessionId: s.session_id };
  };
  return { ...run, results, stdout: () => printed };
}

async function run(name: string, yaml: string) {
  const started = await start(name, yaml);
  const res = await started.done;
  return { res, ...(await started.results()) };
}

describe('browser: { auth }', () => {
  it('logs the connection in first, then starts browsers from its profile already logged in', { timeout: 180_000 }, async () => {
    const id = await connection('scenario-user', PASSWORD);

    const first = await run('first', scenario('first login', id));
    expect(first.res.code, first.res.stdout + first.res.stderr).toBe(0);
    const [auth, create] = first.steps;
    expect(auth).toMatchObject({ kind: 'auth', phase: 'setup', status: 'passed', name: `make sure auth connection ${id} is logged in` });
    expect(auth!.output).toMatchObject({ connection_id: id, profile_name: 'scenario-user', status: 'AUTHENTICATED', login: 'SUCCESS', flow_type: 'LOGIN' });
    expect(create).toMatchObject({ kind: 'browser', status: 'passed' });
    expect(first.res.stdout).toContain(`✓ make sure auth connection ${id} is logged in`);
    expect(site.logins).toHaveLength(1);
    // Read-only: the scenario's browser started from the profile and did not write back to it.
    const session = await svc.call('GET', `/browsers/${first.sessionId}?include_deleted=true`);
    expect(session.body).toMatchObject({ profile: { name: 'scenario-user' }, profile_save_changes: false });

    const second = await run('second', scenario('already logged in', id));
    expect(second.res.code, second.res.stdout + second.res.stderr).toBe(0);
    expect(second.steps[0]!.output).toMatchObject({ status: 'AUTHENTICATED', login: 'not needed' });
    expect(site.logins).toHaveLength(1);
  });

  it('fails as infrastructure, with the flow\'s error, when the login fails', { timeout: 120_000 }, async () => {
    const id = await connection('wrong-password', 'not-it');
    const { res, status, steps } = await run('wrong', scenario('wrong password', id));
    expect(res.code, res.stdout + res.stderr).toBe(3);
    expect(status).toBe('error');
    const [auth, create] = steps;
    expect(auth!.error).toMatchObject({ kind: 'infrastructure', location: 'wrong.yaml:3:3' });
    expect(auth!.error!.message).toContain(`auth connection ${id} (127.0.0.1, profile wrong-password): the login flow ended FAILED: invalid_credentials:`);
    expect(auth!.error!.message).toContain('Invalid username or password');
    expect(create).toMatchObject({ kind: 'browser', status: 'skipped' });
    expect(steps.filter((s) => s.phase === 'main').map((s) => s.status)).toEqual(['skipped', 'skipped']);
    expect(res.stdout).toContain('invalid_credentials');
  });

  it('says where a person can complete a login that waits for one, and goes on once they have', { timeout: 180_000 }, async () => {
    const id = await connection('needs-a-person');
    const run = await start('person', scenario('a person logs in', '{ domain: 127.0.0.1, profile: needs-a-person }'));
    // Off a terminal the list reporter prints the wait as plain lines, the page's address on its own line.
    const url = await eventually(() => {
      if (run.child.exitCode !== null) throw new Error(`bcs ended before the flow asked for input:\n${run.stdout()}`);
      return /complete it at:\n\s+(http\S+)/.exec(run.stdout())?.[1];
    }, 90_000, 200);
    const waiting = await svc.call('GET', `/auth/connections/${id}`);
    expect(waiting.body).toMatchObject({ flow_status: 'IN_PROGRESS', flow_step: 'AWAITING_INPUT', hosted_url: url });
    expect(run.stdout()).toMatch(/waiting for a person to complete the login/);
    expect(run.stdout()).toMatch(/it asks for .*\(identifier\).*\(password\)/);
    const submitted = await svc.call('POST', `/auth/connections/${id}/submit`, { body: { field_values: { identifier: USER, password: PASSWORD } } });
    expect(submitted.body).toEqual({ accepted: true });
    const res = await run.done;
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const { steps } = await run.results();
    expect(steps[0]!.output).toMatchObject({ connection_id: id, login: 'SUCCESS' });
  });
});

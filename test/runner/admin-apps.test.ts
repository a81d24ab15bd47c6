// `bcs deploy`, `bcs invoke`, `bcs apps|deployments|invocations` against a real service: an app folder
// zipped without its node_modules and .git, its build followed to running with the log printed; a build
// that fails; actions invoked synchronously, failing, and async with their log followed; the lists.
import { writeFile } from 'node:fs/promises';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiConnectionError } from '../../src/api/index.js';
import { zipFolder } from '../../runner/cli/admin/extensions.js';
import { followEvents, type EventFrame } from '../../runner/cli/admin/follow.js';
import type { Admin } from '../../runner/cli/admin/output.js';
import { zipOf } from '../helpers/app-zip.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const APP = `
import { Kernel, type KernelContext } from '@onkernel/sdk';

const kernel = new Kernel();
const app = kernel.app('greeter');

app.action('hello', async (_ctx: KernelContext, payload?: { name: string }) => ({ hi: payload?.name }));
app.action('echo', async (_ctx: KernelContext, payload?: unknown) => {
  console.log('echo ' + JSON.stringify(payload));
  return payload;
});
app.action('fail', async (_ctx: KernelContext) => {
  throw new Error('boom: no greeting today');
});
app.action('env', async (_ctx: KernelContext) => ({ GREETING: process.env.GREETING, TOKEN: process.env.SECRET_TOKEN }));
`;

/** Were node_modules uploaded, the app would import this SDK instead of the service's, and fail to load. */
const POISONED_SDK = {
  'node_modules/@onkernel/sdk/package.json': JSON.stringify({ name: '@onkernel/sdk', version: '0.0.0', main: 'index.js' }),
  'node_modules/@onkernel/sdk/index.js': "throw new Error('node_modules was uploaded');\n",
};

const TOKEN = 'tok-Xy93-from-the-environment';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ heartbeatMs: 100 });
});
afterAll(async () => {
  await svc?.close();
});

function bcs(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, ...env });
}
const json = (res: CliResult) => {
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

/** The app `greeter` version 1.0.0, deployed once from a folder by whichever test needs it first. */
let greeter: Promise<{ res: CliResult; dir: string }> | undefined;
function deployGreeter() {
  greeter ??= (async () => {
    const project = await inlineFiles({ 'greeter/index.ts': APP, 'greeter/.git/HEAD': 'ref: refs/heads/main\n', ...prefixed('greeter/', POISONED_SDK) });
    const dir = project.path('greeter');
    const res = await bcs(['deploy', dir, '--version', '1.0.0', '--env', 'GREETING=Hello there', '--env', 'SECRET_TOKEN'], { SECRET_TOKEN: TOKEN });
    return { res, dir };
  })();
  return greeter;
}
/** `bcs invoke greeter ...` once greeter runs. */
async function invoke(args: string[]): Promise<CliResult> {
  expect((await deployGreeter()).res.code).toBe(0);
  return bcs(['invoke', 'greeter', ...args, '--version', '1.0.0']);
}

function prefixed(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [prefix + k, v]));
}

async function zipNames(bytes: Uint8Array): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName);
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return names;
}

describe('bcs deploy', () => {
  it('zips a folder without node_modules and .git, follows the build to running and prints its log', { timeout: 120_000 }, async () => {
    const { res, dir } = await deployGreeter();
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toMatch(/^deployment \S+ queued \(\d+ bytes uploaded\)$/);
    const id = /^deployment (\S+)/.exec(lines[0]!)![1]!;
    expect(lines).toContain('entrypoint: index.ts');
    expect(lines).toContain('bundling with esbuild');
    expect(lines).toContain('app greeter version 1.0.0, actions: hello, echo, fail, env');
    expect(res.stdout).toContain(`deployment ${id} is running; invoke an action with \`bcs invoke greeter ACTION --version 1.0.0\`\n`);
    expect(res.stderr).toBe('');

    // What was zipped: the app, not the folders the service never needs.
    expect(await zipNames(await zipFolder(dir, ['node_modules', '.git']))).toEqual(['index.ts']);
    // The variables reached the app, the one named alone taken from the environment.
    const env = await invoke(['env']);
    expect(env.code, env.stderr).toBe(0);
    expect(JSON.parse(env.stdout)).toEqual({ GREETING: 'Hello there', TOKEN });
  });

  it('exits 1 with the reason when the build fails', { timeout: 120_000 }, async () => {
    const project = await inlineFiles({ 'broken/index.ts': 'const x = ;\n' });
    const res = await bcs(['deploy', project.path('broken')]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^bcs: deployment \S+ failed: the build failed:\nindex\.ts:1:11: /);
    expect(res.stdout).toContain('bundling with esbuild\n');
  });

  it('deploys a zip with --json, lists it with its app and stops it', { timeout: 120_000 }, async () => {
    const project = await inlineFiles({});
    const zip = project.path('pinger.zip');
    await writeFile(zip, await zipOf({ 'main.ts': "import { Kernel } from '@onkernel/sdk';\nnew Kernel().app('pinger').action('ping', async (_ctx) => 'pong');\n" }));

    const res = await bcs(['deploy', zip, '--json']);
    const deployment = json(res);
    expect(deployment).toMatchObject({ status: 'running', app_name: 'pinger', version: 'latest', entrypoint_rel_path: 'main.ts' });
    // The log went to stderr, leaving stdout to the JSON.
    expect(res.stderr).toContain('bundling with esbuild\n');

    // Invoked with the default version, `latest`.
    const ping = await bcs(['invoke', 'pinger', 'ping']);
    expect([ping.code, ping.stdout, ping.stderr]).toEqual([0, '"pong"\n', '']);

    const apps = await bcs(['apps', 'list', '--app', 'pinger']);
    expect(apps.code, apps.stderr).toBe(0);
    expect(apps.stdout.split('\n')[0]).toMatch(/^APP\s+VERSION\s+ACTIONS\s+DEPLOYMENT$/);
    expect(apps.stdout).toMatch(new RegExp(`^pinger\\s+latest\\s+ping\\s+${deployment.id}$`, 'm'));
    expect(json(await bcs(['apps', 'list', '--json']))).toContainEqual(expect.objectContaining({ app_name: 'pinger', deployment: deployment.id, actions: [{ name: 'ping' }] }));

    const listed = await bcs(['deployments', 'list', '--app', 'pinger']);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+APP\s+VERSION\s+CREATED$/);
    expect(listed.stdout).toMatch(new RegExp(`^${deployment.id}\\s+running\\s+pinger\\s+latest\\s+\\d{4}-`, 'm'));

    const stopped = await bcs(['deployments', 'stop', deployment.id]);
    expect([stopped.code, stopped.stdout]).toEqual([0, `stopped deployment ${deployment.id}\n`]);
    const after = json(await bcs(['deployments', 'list', '--app', 'pinger', '--json']));
    expect(after).toEqual([expect.objectContaining({ id: deployment.id, status: 'stopped' })]);
    const gone = await bcs(['invoke', 'pinger', 'ping']);
    expect(gone.code).toBe(1);
  });

  it('prints the queued deployment with --no-follow', { timeout: 60_000 }, async () => {
    const project = await inlineFiles({ 'quick/index.ts': "import { Kernel } from '@onkernel/sdk';\nnew Kernel().app('quick').action('a', async (_ctx) => 1);\n" });
    const queued = json(await bcs(['deploy', project.path('quick'), '--no-follow', '--json']));
    expect(queued.status).toBe('queued');
  });

  it('refuses bad flags with exit 2 before uploading', async () => {
    const project = await inlineFiles({ 'app/index.ts': APP });
    const unset = await bcs(['deploy', project.path('app'), '--env', 'BCS_TEST_NOT_SET_ANYWHERE']);
    expect([unset.code, unset.stderr]).toEqual([2, expect.stringContaining('BCS_TEST_NOT_SET_ANYWHERE is not set in this environment')]);
    const badName = await bcs(['deploy', project.path('app'), '--env', '1X=y']);
    expect(badName.code).toBe(2);
    const noEntry = await bcs(['deploy', project.path('app'), '--entrypoint', 'src/nope.ts']);
    expect([noEntry.code, noEntry.stderr]).toEqual([2, expect.stringContaining('--entrypoint src/nope.ts: no such file')]);
    const missing = await bcs(['deploy', project.path('nothing-here')]);
    expect(missing.code).toBe(2);
  });
});

describe('bcs invoke', () => {
  it('runs an action with a payload, waits for it and prints its output as JSON', { timeout: 120_000 }, async () => {
    const res = await invoke(['hello', '--payload', '{"name":"Ada"}', '--timeout', '60']);
    expect([res.code, res.stdout, res.stderr]).toEqual([0, '{\n  "hi": "Ada"\n}\n', '']);

    const project = await inlineFiles({ 'payload.json': '{ "name": "Grace" }' });
    const fromFile = await invoke(['hello', '--payload', `@${project.path('payload.json')}`, '--json']);
    expect(json(fromFile)).toMatchObject({ status: 'succeeded', app_name: 'greeter', action_name: 'hello', output: '{"hi":"Grace"}' });
  });

  it('exits 1 with the reason when the action fails', { timeout: 120_000 }, async () => {
    const res = await invoke(['fail']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^bcs: invocation \S+ failed: boom: no greeting today\n$/);
    expect(res.stdout).toBe('');
  });

  it('--async queues; --async --follow prints the log on stderr and the output on stdout', { timeout: 120_000 }, async () => {
    const queued = json(await invoke(['echo', '--async', '--json']));
    expect(queued).toMatchObject({ status: 'queued', action_name: 'echo' });

    const followed = await invoke(['echo', '--payload', '"later"', '--async', '--follow', '--timeout', '60']);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toBe('"later"\n');
    expect(followed.stderr.split('\n')).toContain('echo "later"');
  });

  it('refuses a payload that is not JSON, and a --timeout out of range, with exit 2', async () => {
    const bad = await bcs(['invoke', 'greeter', 'hello', '--payload', '{nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^bcs: --payload is not JSON: /);
    const noFile = await bcs(['invoke', 'greeter', 'hello', '--payload', '@/nonexistent/payload.json']);
    expect([noFile.code, noFile.stderr]).toEqual([2, expect.stringContaining('cannot read /nonexistent/payload.json')]);
    const range = await bcs(['invoke', 'greeter', 'hello', '--async', '--timeout', '5']);
    expect(range.code).toBe(2);
  });
});

describe('bcs invocations list', () => {
  it('lists invocations, filtered by app and status', { timeout: 120_000 }, async () => {
    const failedRun = await invoke(['fail', '--json']);
    expect(failedRun.code).toBe(1);
    const failed = JSON.parse(failedRun.stdout);
    const ok = json(await invoke(['hello', '--json']));

    const all = await bcs(['invocations', 'list', '--app', 'greeter']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.split('\n')[0]).toMatch(/^ID\s+APP\s+ACTION\s+STATUS\s+STARTED$/);
    expect(all.stdout).toMatch(new RegExp(`^${failed.id}\\s+greeter\\s+fail\\s+failed\\s+\\d{4}-`, 'm'));
    expect(all.stdout).toMatch(new RegExp(`^${ok.id}\\s+greeter\\s+hello\\s+succeeded\\s`, 'm'));

    const onlyFailed = json(await bcs(['invocations', 'list', '--app', 'greeter', '--status', 'failed', '--json'])) as { id: string; status: string }[];
    expect(onlyFailed.map((i) => i.id)).toContain(failed.id);
    expect(onlyFailed.every((i) => i.status === 'failed')).toBe(true);
    expect((await bcs(['invocations', 'list', '--status', 'done'])).code).toBe(2);
  });
});

describe('following events', () => {
  const frame = (message: string, timestamp: string): EventFrame => ({ event: 'log', message, timestamp });
  const t1 = '2026-01-01T00:00:01.000Z';
  const t2 = '2026-01-01T00:00:02.000Z';

  it('resumes a broken stream from the last frame, handing each frame over once', async () => {
    const queries: unknown[] = [];
    const streams: (() => AsyncIterableIterator<EventFrame>)[] = [
      async function* () {
        yield frame('one', t1);
        yield { event: 'sse_heartbeat', timestamp: t2 };
        yield frame('two', t2);
        throw new ApiConnectionError({ method: 'GET', path: '/x/events', cause: new Error('socket hang up') });
      },
      // From `since` on: the frames at that time again (a repeated line among them), then new ones.
      async function* () {
        yield frame('two', t2);
        yield frame('two', t2);
        yield { event: 'deployment_state', deployment: { status: 'running' }, timestamp: t2 };
        yield frame('never read', t2);
      },
    ];
    const admin = { events: (_path: string, query?: Record<string, unknown>) => (queries.push(query), streams.shift()!()) } as unknown as Admin;
    const seen: string[] = [];
    await followEvents(admin, '/x/events', (f) => (seen.push(String(f.message ?? f.event)), f.event === 'deployment_state'), async () => false);
    expect(seen).toEqual(['one', 'two', 'two', 'deployment_state']);
    expect(queries).toEqual([undefined, { since: t2 }]);
  });

  it('asks whether the resource settled when a stream ends early, and gives up on a stream that keeps breaking', async () => {
    const ended = { events: async function* () {} } as unknown as Admin;
    let asked = 0;
    await followEvents(ended, '/x/events', () => false, async () => ++asked > 0);
    expect(asked).toBe(1);

    const broken = {
      events: async function* () {
        throw new ApiConnectionError({ method: 'GET', path: '/x/events', cause: new Error('ECONNREFUSED') });
      },
    } as unknown as Admin;
    await expect(followEvents(broken, '/x/events', () => false, async () => false)).rejects.toBeInstanceOf(ApiConnectionError);
  }, 30_000);
});

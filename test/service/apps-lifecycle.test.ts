// Apps beyond the happy path: the per-project invocation limit, timeouts, what an action can and cannot
// reach, app keys, stopping a deployment, and a restart of the service (versions load again; runs in
// flight fail with a reason).
import Kernel, { toFile } from '@onkernel/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/index.js';
import { zipOf } from '../helpers/app-zip.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { openServiceStore } from '../helpers/store-access.js';

const APP = `
import { Kernel, type KernelContext } from '@onkernel/sdk';
import { readFileSync, readdirSync } from 'node:fs';

const kernel = new Kernel();
const app = kernel.app('probe');

app.action('hold', async (_ctx: KernelContext, payload?: { ms: number }) => {
  console.log('holding');
  await new Promise((resolve) => setTimeout(resolve, payload?.ms ?? 120_000));
  return 'done';
});
app.action('where', async (_ctx: KernelContext, payload?: { path: string }) => {
  const read = (path: string) => {
    try {
      return readdirSync(path).length >= 0 ? 'readable' : 'empty';
    } catch (err) {
      try {
        readFileSync(path);
        return 'readable';
      } catch (err2) {
        return (err2 as NodeJS.ErrnoException).code ?? 'error';
      }
    }
  };
  return { uid: process.getuid?.(), target: read(payload!.path), cwd: process.cwd() };
});
app.action('admin', async (_ctx: KernelContext) => {
  const keys = await kernel.apiKeys.list().catch((err: { status?: number }) => err.status);
  const browsers = await kernel.browsers.list().then(() => 'ok');
  return { keys, browsers };
});
app.action('exit', async (_ctx: KernelContext) => {
  process.exit(3);
});
`;

let dataDir: string;
let svc: TestService;
let kernel: Kernel;

async function startAt(): Promise<void> {
  svc = await startTestService({ dataDir, heartbeatMs: 100 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
}

async function deployed(files: Record<string, string>, params: Record<string, unknown> = {}, client = kernel) {
  const created = await client.deployments.create({ file: await toFile(await zipOf(files), 'app.zip'), ...params });
  for await (const _ of await client.deployments.follow(created.id)) {
    // to the end
  }
  const d = await client.deployments.retrieve(created.id);
  expect(d.status, d.status_reason).toBe('running');
  return d;
}

const invoke = (action: string, payload?: unknown, extra: Record<string, unknown> = {}, client = kernel) =>
  client.invocations.create({ app_name: 'probe', version: 'latest', action_name: action, payload: payload === undefined ? undefined : JSON.stringify(payload), ...extra });

async function untilLog(id: string, message: string, client = kernel): Promise<void> {
  for await (const e of await client.invocations.follow(id)) if (e.event === 'log' && e.message === message) return;
  throw new Error(`the invocation ended without logging '${message}'`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'bcs-apps-'));
  await startAt();
  await deployed({ 'index.ts': APP });
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('what an action reaches', () => {
  it('runs without root, and cannot read the service data dir', async () => {
    const out = JSON.parse((await invoke('where', { path: dataDir })).output!);
    expect(out.uid).not.toBe(0);
    expect(out.target).not.toBe('readable');
    const db = JSON.parse((await invoke('where', { path: join(dataDir, 'service.db') })).output!);
    expect(db.target).not.toBe('readable');
  }, 30_000);

  it("has a key for its project's resources but not for organisation administration", async () => {
    const out = JSON.parse((await invoke('admin')).output!);
    expect(out).toEqual({ keys: 403, browsers: 'ok' });
  }, 30_000);

  it("fails an invocation whose process exits before the action returns", async () => {
    const inv = await invoke('exit');
    expect(inv.status).toBe('failed');
    expect(inv.status_reason).toMatch(/process ended before the action returned \(exit code 3\)/);
  }, 30_000);
});

describe('limits and timeouts', () => {
  it("caps a project's concurrent invocations exactly, with 429 beyond", async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'capped' } })).body;
    await svc.call('PATCH', `/org/projects/${project.id}/limits`, { body: { max_concurrent_invocations: 2 } });
    const scoped = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID: project.id } as ConstructorParameters<typeof Kernel>[0]);
    await deployed({ 'index.ts': APP }, {}, scoped);
    // Five at once: exactly two are admitted.
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => invoke('hold', { ms: 60_000 }, { async: true }, scoped)));
    const admitted = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ id: string }>).value.id);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.status);
    expect(admitted).toHaveLength(2);
    expect(refused).toEqual([429, 429, 429]);
    // Invocations of the default project count toward nothing of this one.
    expect((await invoke('where', { path: '/' })).status).toBe('succeeded');
    for (const id of admitted) await scoped.invocations.update(id, { status: 'failed' });
    expect((await invoke('where', { path: '/' }, {}, scoped)).status).toBe('succeeded');
  }, 60_000);

  it('stops an async run at its timeout and fails it with the reason', async () => {
    const inv = await invoke('hold', { ms: 120_000 }, { async: true, async_timeout_seconds: 10 });
    await untilLog(inv.id, 'holding');
    const events = [];
    for await (const e of await kernel.invocations.follow(inv.id)) events.push(e);
    const final = await kernel.invocations.retrieve(inv.id);
    expect(final.status).toBe('failed');
    expect(final.status_reason).toMatch(/did not finish within 10 s/);
    expect(events.some((e) => e.event === 'error')).toBe(true);
    // Ten seconds of a stream with heartbeats every 100 ms.
    expect(events.some((e) => e.event === 'sse_heartbeat')).toBe(true);
  }, 40_000);
});

describe('the event streams', () => {
  it("follow with the project's client too, and replay from `since`", async () => {
    const inv = await invoke('where', { path: '/' }, { async: true });
    const client = new CloudClient({ baseUrl: svc.baseUrl, apiKey: svc.apiKey });
    const states: string[] = [];
    for await (const e of client.events<{ event: string; invocation?: { status: string } }>(`/invocations/${inv.id}/events`)) {
      if (e.event === 'invocation_state') states.push(e.invocation!.status);
    }
    expect(states).toEqual(['queued', 'running', 'succeeded']);
    // Long after the end, a follow replays what is stored and ends.
    const replay: string[] = [];
    for await (const e of await kernel.invocations.follow(inv.id, { since: '1h' })) replay.push(e.event);
    expect(replay.filter((e) => e === 'invocation_state')).toHaveLength(3);
    // `since` later than everything: only the final state.
    const none: any[] = [];
    for await (const e of await kernel.invocations.follow(inv.id, { since: new Date(Date.now() + 60_000).toISOString() })) none.push(e);
    expect(none.map((e) => [e.event, e.invocation?.status])).toEqual([['invocation_state', 'succeeded']]);
    const bad = await svc.call('GET', `/invocations/${inv.id}/events?since=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^querystring\.since/);
  }, 30_000);
});

describe('stopping and restarting', () => {
  it('DELETE stops a deployment: its app is gone and what runs of it fails', async () => {
    const d = await deployed({ 'index.ts': APP.replace("kernel.app('probe')", "kernel.app('doomed')") });
    const inv = await kernel.invocations.create({ app_name: 'doomed', version: 'latest', action_name: 'hold', async: true });
    await untilLog(inv.id, 'holding');
    await kernel.deployments.delete(d.id);
    expect((await kernel.deployments.retrieve(d.id)).status).toBe('stopped');
    for await (const _ of await kernel.invocations.follow(inv.id)) {
      // to the end
    }
    const final = await kernel.invocations.retrieve(inv.id);
    expect(final.status).toBe('failed');
    expect(final.status_reason).toMatch(/deployment was stopped/);
    await expect(kernel.invocations.create({ app_name: 'doomed', version: 'latest', action_name: 'hold' })).rejects.toMatchObject({ status: 404 });
  }, 60_000);

  it('after a restart, deployed versions run without a redeploy and runs in flight are failed', async () => {
    const inv = await invoke('hold', { ms: 120_000 }, { async: true });
    await untilLog(inv.id, 'holding');
    // Closed as a crash would leave it: the record says running.
    await svc.close();
    const { sql } = await import('../../src/service/store/sql.js');
    const db = await openServiceStore(svc);
    await db.run(sql`UPDATE invocations SET status = 'running', finished_at = NULL, status_reason = NULL WHERE id = ${inv.id}`);
    await db.close();
    await startAt();
    const after = await kernel.invocations.retrieve(inv.id);
    expect(after.status).toBe('failed');
    expect(after.status_reason).toMatch(/service restarted/);
    const again = await invoke('where', { path: '/' });
    expect(again.status, again.status_reason).toBe('succeeded');
  }, 60_000);
});

describe('without the sandbox', () => {
  it(process.getuid?.() === 0 ? 'a root service refuses to run app code: the deployment fails saying why' : 'a non-root service runs app code as itself', async () => {
    const other = await startTestService({ sandbox: 'off' });
    try {
      const client = new Kernel({ apiKey: other.apiKey, baseURL: other.baseUrl, maxRetries: 0 });
      const created = await client.deployments.create({ file: await toFile(await zipOf({ 'index.ts': APP }), 'app.zip') });
      for await (const _ of await client.deployments.follow(created.id)) {
        // to the end
      }
      const d = await client.deployments.retrieve(created.id);
      if (process.getuid?.() === 0) {
        expect(d.status).toBe('failed');
        expect(d.status_reason).toMatch(/never runs as root/);
      } else {
        expect(d.status, d.status_reason).toBe('running');
        const inv = await client.invocations.create({ app_name: 'probe', version: 'latest', action_name: 'where', payload: '{"path":"/"}' });
        expect(JSON.parse(inv.output!).uid).toBe(process.getuid?.());
      }
    } finally {
      await other.close();
    }
  }, 60_000);
});

// Deployments and invocations through the hosted SDK, unchanged: a real KernelApp is zipped, deployed,
// loaded in its worker, and its actions invoked; one of them drives a real browser with Playwright.
import Kernel, { toFile } from '@onkernel/sdk';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../helpers/app-zip.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const APP = `
import { Kernel, type KernelContext } from '@onkernel/sdk';
import { chromium } from 'playwright-core';

const kernel = new Kernel();
const app = kernel.app('titles');

app.action('title', async (ctx: KernelContext, payload?: { url: string }) => {
  const b = await kernel.browsers.create({ invocation_id: ctx.invocation_id });
  const browser = await chromium.connectOverCDP(b.cdp_ws_url);
  const context = browser.contexts()[0]!;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(payload!.url);
  const title = await page.title();
  await browser.close();
  return { title, session: b.session_id };
});
app.action('echo', async (_ctx: KernelContext, payload?: unknown) => {
  console.log('echo ' + JSON.stringify(payload));
  return payload;
});
app.action('fail', async (_ctx: KernelContext) => {
  throw new Error('boom: the input was wrong');
});
app.action('env', async (_ctx: KernelContext) => ({ FOO: process.env.FOO, key: Boolean(process.env.KERNEL_API_KEY), uid: process.getuid?.() }));
app.action('hold', async (ctx: KernelContext) => {
  await kernel.browsers.create({ invocation_id: ctx.invocation_id });
  console.log('holding');
  await new Promise((resolve) => setTimeout(resolve, 120_000));
  return 'released';
});
`;

let svc: TestService;
let kernel: Kernel;
let site: Server;
let siteUrl: string;

async function deploy(files: Record<string, string>, params: Record<string, unknown> = {}) {
  const file = await toFile(await zipOf(files), 'app.zip');
  return kernel.deployments.create({ file, ...params });
}

async function activeBrowsers(): Promise<string[]> {
  return (await kernel.browsers.list()).getPaginatedItems().map((b) => b.session_id);
}

/** Follows a deployment's events to their end. */
async function settle(id: string) {
  const events: any[] = [];
  const stream = await kernel.deployments.follow(id);
  for await (const e of stream) events.push(e);
  return { events, deployment: await kernel.deployments.retrieve(id) };
}

beforeAll(async () => {
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Deployed hello</title><p>hi</p>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  svc = await startTestService({ heartbeatMs: 100 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
}, 60_000);
afterAll(async () => {
  await svc?.close();
  site?.close();
});

describe('deployments', () => {
  let deploymentId: string;

  it('deploys a zip: queued, then in_progress and running, with logs and the app version', async () => {
    const created = await deploy({ 'index.ts': APP }, { entrypoint_rel_path: 'index.ts', env_vars: { FOO: 'bar' }, version: '1.0.0' });
    expect(created.status).toBe('queued');
    expect(created.region).toBe('aws.us-east-1a');
    expect(created.source_checksum).toMatch(/^[0-9a-f]{64}$/);
    deploymentId = created.id;
    const { events, deployment } = await settle(created.id);
    expect(deployment.status, deployment.status_reason).toBe('running');
    const states = events.filter((e) => e.event === 'deployment_state').map((e) => e.deployment.status);
    expect(states).toEqual(['queued', 'in_progress', 'running']);
    expect(events.some((e) => e.event === 'log' && /bundling/.test(e.message))).toBe(true);
    const summary = events.find((e) => e.event === 'app_version_summary');
    expect(summary).toMatchObject({ app_name: 'titles', version: '1.0.0' });
    expect(summary.actions.map((a: any) => a.name)).toEqual(['title', 'echo', 'fail', 'env', 'hold']);
    expect(deployment.env_vars).toEqual({ FOO: '' });
  }, 60_000);

  it('lists apps with their actions, env var values redacted, filtered and paged', async () => {
    const apps = [];
    for await (const a of kernel.apps.list({ app_name: 'titles' })) apps.push(a);
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({ app_name: 'titles', version: '1.0.0', deployment: deploymentId, env_vars: { FOO: '' }, region: 'aws.us-east-1a' });
    const none = await kernel.apps.list({ app_name: 'titles', version: '9' });
    expect(none.getPaginatedItems()).toEqual([]);
    const listed = [];
    for await (const d of kernel.deployments.list({ app_name: 'titles' })) listed.push(d.id);
    expect(listed).toEqual([deploymentId]);
  });

  it('refuses the same version again without force, and replaces it with force', async () => {
    const again = await deploy({ 'index.ts': APP }, { version: '1.0.0' });
    const first = await settle(again.id);
    expect(first.deployment.status).toBe('failed');
    expect(first.deployment.status_reason).toMatch(/version '1.0.0' of app 'titles' is already deployed/);
    expect(first.events.some((e) => e.event === 'error')).toBe(true);

    const forced = await deploy({ 'index.ts': APP }, { version: '1.0.0', force: true, env_vars: { FOO: 'forced' } });
    expect((await settle(forced.id)).deployment.status).toBe('running');
    expect((await kernel.deployments.retrieve(deploymentId)).status).toBe('stopped');
    deploymentId = forced.id;
  }, 60_000);

  it('fails with the reason for a bad zip, a missing entrypoint, a build error and an app without actions', async () => {
    const bad = await kernel.deployments.create({ file: await toFile(Buffer.from('not a zip'), 'app.zip') });
    expect((await settle(bad.id)).deployment.status_reason).toMatch(/zip/);
    const noEntry = await deploy({ 'readme.md': 'hi' });
    expect((await settle(noEntry.id)).deployment.status_reason).toMatch(/no entrypoint/);
    const syntax = await deploy({ 'index.ts': 'const x = ;\n' });
    expect((await settle(syntax.id)).deployment.status_reason).toMatch(/index\.ts:1:11/);
    const empty = await deploy({ 'index.ts': "import { Kernel } from '@onkernel/sdk';\nnew Kernel({ apiKey: 'x' }).app('empty');\n" });
    expect((await settle(empty.id)).deployment.status_reason).toMatch(/app 'empty' defines no action/);
    const throws = await deploy({ 'index.ts': "throw new Error('cannot start');\n" });
    expect((await settle(throws.id)).deployment.status_reason).toMatch(/cannot start \(at index\.ts:1:7\)/);
    const apps = (await kernel.apps.list()).getPaginatedItems().map((a) => a.app_name);
    expect(apps).toEqual(['titles']);
    // Nothing of a failed deployment stays but its record.
    await eventually(async () => (existsSync(join(svc.dataDir, 'deployments', throws.id)) ? undefined : true), 30_000);
  }, 90_000);

  it("installs the app's dependencies from its lockfile (npm ci, scripts off) and bundles them", async () => {
    const files = {
      'package.json': JSON.stringify({ name: 'deps-app', version: '1.0.0', dependencies: { greet: 'file:vendor/greet' }, scripts: { postinstall: 'touch /tmp/should-not-run' } }),
      'package-lock.json': JSON.stringify({
        name: 'deps-app',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'deps-app', version: '1.0.0', dependencies: { greet: 'file:vendor/greet' } },
          'node_modules/greet': { resolved: 'vendor/greet', link: true },
          'vendor/greet': { version: '1.0.0' },
        },
      }),
      'vendor/greet/package.json': JSON.stringify({ name: 'greet', version: '1.0.0', main: 'index.js' }),
      'vendor/greet/index.js': "module.exports = (n) => 'hi ' + n;\n",
      'src/main.ts': "import { Kernel } from '@onkernel/sdk';\nimport greet from 'greet';\nnew Kernel().app('deps').action('greet', async (_ctx, p?: string) => greet(p));\n",
    };
    const d = await deploy(files, { entrypoint_rel_path: './src/main.ts' });
    const { events, deployment } = await settle(d.id);
    expect(deployment.status, deployment.status_reason).toBe('running');
    expect(deployment.entrypoint_rel_path).toBe('./src/main.ts');
    expect(events.some((e) => e.event === 'log' && /installing dependencies \(npm ci/.test(e.message))).toBe(true);
    const inv = await kernel.invocations.create({ app_name: 'deps', version: 'latest', action_name: 'greet', payload: '"you"' });
    expect(inv.output).toBe('"hi you"');
  }, 90_000);

  it('refuses a GitHub source and a missing file with a 400 naming the field', async () => {
    const github = await svc.call('POST', '/deployments', { body: { source: { type: 'github', url: 'https://github.com/a/b', ref: 'main', entrypoint: 'index.ts' } } });
    expect(github.status).toBe(400);
    expect(github.body.message).toMatch(/^body\.source: .*GitHub/);
    await expect(kernel.deployments.create({ version: '2' })).rejects.toMatchObject({ status: 400 });
  });
});

describe('invocations', () => {
  const invoke = (action: string, payload?: unknown, extra: Record<string, unknown> = {}) =>
    kernel.invocations.create({ app_name: 'titles', version: '1.0.0', action_name: action, payload: payload === undefined ? undefined : JSON.stringify(payload), ...extra });

  it('runs an action synchronously and returns its output as JSON text', async () => {
    const inv = await invoke('echo', { a: [1, 2] });
    expect(inv.status).toBe('succeeded');
    expect(JSON.parse(inv.output!)).toEqual({ a: [1, 2] });
    const got = await kernel.invocations.retrieve(inv.id);
    expect(got).toMatchObject({ app_name: 'titles', action_name: 'echo', version: '1.0.0', payload: '{"a":[1,2]}' });
    expect(got.finished_at).toBeTruthy();
  }, 30_000);

  it('gives the action the deployment env and a key for this service; the action drives a browser it created', async () => {
    const env = JSON.parse((await invoke('env')).output!);
    expect(env).toMatchObject({ FOO: 'forced', key: true });
    expect(env.uid).not.toBe(0);
    const inv = await invoke('title', { url: siteUrl });
    expect(inv.status, inv.status_reason).toBe('succeeded');
    const out = JSON.parse(inv.output!);
    expect(out.title).toBe('Deployed hello');
    // The invocation's browser ended with it.
    expect((await kernel.invocations.listBrowsers(inv.id)).browsers).toEqual([]);
    expect(await activeBrowsers()).not.toContain(out.session);
  }, 60_000);

  it('fails with the thrown error, and rejects a payload that is not JSON', async () => {
    const inv = await invoke('fail');
    expect(inv.status).toBe('failed');
    expect(inv.status_reason).toBe('boom: the input was wrong');
    const bad = await svc.call('POST', '/invocations', { body: { app_name: 'titles', version: '1.0.0', action_name: 'echo', payload: '{nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^body\.payload: must be JSON text/);
    const noAsync = await svc.call('POST', '/invocations', { body: { app_name: 'titles', version: '1.0.0', action_name: 'echo', async_timeout_seconds: 30 } });
    expect(noAsync.status).toBe(400);
    const missing = await svc.call('POST', '/invocations', { body: { app_name: 'titles', version: '1.0.0', action_name: 'nope' } });
    expect(missing.status).toBe(404);
  }, 30_000);

  it('runs async: 202 queued, then its output and states on the event stream', async () => {
    const inv = await invoke('echo', 'later', { async: true });
    expect(inv.status).toBe('queued');
    const events: any[] = [];
    for await (const e of await kernel.invocations.follow(inv.id)) events.push(e);
    expect(events.filter((e) => e.event === 'invocation_state').map((e) => e.invocation.status)).toEqual(['queued', 'running', 'succeeded']);
    expect(events.some((e) => e.event === 'log' && e.message === 'echo "later"')).toBe(true);
    expect(JSON.parse((await kernel.invocations.retrieve(inv.id)).output!)).toBe('later');
    const listed = [];
    for await (const i of kernel.invocations.list({ action_name: 'echo', status: 'succeeded', since: '5m' })) listed.push(i.id);
    expect(listed).toContain(inv.id);
  }, 30_000);

  it('cancels a running action: the process is killed, its browsers end', async () => {
    const inv = await invoke('hold', undefined, { async: true });
    const stream = await kernel.invocations.follow(inv.id);
    const seen: any[] = [];
    for await (const e of stream) {
      seen.push(e);
      if (e.event === 'log' && e.message === 'holding') break;
    }
    const browsers = (await kernel.invocations.listBrowsers(inv.id)).browsers;
    expect(browsers).toHaveLength(1);
    const cancelled = await kernel.invocations.update(inv.id, { status: 'failed' });
    expect(cancelled.status).toBe('failed');
    expect(cancelled.status_reason).toMatch(/cancelled/);
    expect(await activeBrowsers()).not.toContain(browsers[0]!.session_id);
    await expect(kernel.invocations.update(inv.id, { status: 'failed' })).rejects.toMatchObject({ status: 409 });
  }, 60_000);
});

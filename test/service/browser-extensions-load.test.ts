// POST /browsers/{id}/extensions through the hosted SDK (browsers.loadExtensions), unchanged: real extension
// zips loaded into a running browser, which restarts its Chromium with them. The session keeps its id, CDP
// URL, user data (a cookie and localStorage set before), recording, input and Playwright; bad names and zips
// are 400s naming the field, and leave the browser running as it was.
import Kernel, { BadRequestError, NotFoundError, toFile } from '@onkernel/sdk';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { zipOf } from '../helpers/app-zip.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { colourAt, download, probe, replaySkipReason, sleep } from '../helpers/replays.js';
import { eventually, processesMentioning, startTestService, type TestService } from '../helpers/service.js';

const exe = await findChromium(process.env.BCS_CHROMIUM);
const headful = await headfulSupport(exe.headlessShell);

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;
let dir: string;

beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  site = createServer((req, res) => {
    if (req.url === '/green') return res.writeHead(200, { 'content-type': 'text/html' }).end('<body style="background:rgb(0,200,0)"></body>');
    // A persistent cookie: what a browser restarted from the same user data still has.
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'kept=yes; Max-Age=3600; Path=/' }).end('<title>original</title><p>page</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'bcs-ext-load-'));
});
afterAll(async () => {
  await svc?.close();
  site?.close();
  await rm(dir, { recursive: true, force: true });
});


/** A content script that marks every page it runs on. */
const marker = {
  'manifest.json': JSON.stringify({
    manifest_version: 3,
    name: 'page marker',
    version: '1.0',
    content_scripts: [{ matches: ['<all_urls>'], js: ['content.js'], run_at: 'document_end' }],
  }),
  'content.js': `const mark = document.createElement('div'); mark.id = 'extension-mark'; document.body.appendChild(mark);`,
};

/** A background service worker: a target of its own in CDP. */
const worker = {
  'manifest.json': JSON.stringify({ manifest_version: 3, name: 'background worker', version: '1.0', background: { service_worker: 'sw.js' } }),
  'sw.js': `self.addEventListener('install', () => {});`,
};

/** Raw multipart POST, for exact statuses and bodies. */
async function post(id: string, parts: Array<[string, Buffer | string]>): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value)]), 'ext.zip');
  }
  const res = await fetch(`${svc.baseUrl}/browsers/${id}/extensions`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` }, body: form });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe.skipIf(exe.headlessShell)('loading extensions into a running browser', () => {
  it('restarts Chromium with them; the session, its user data, recording, input and Playwright go on', async () => {
    const created = await kernel.browsers.create({
      headless: true,
      timeout_seconds: 300,
      viewport: { width: 800, height: 600 },
      telemetry: { browser: { console: { enabled: true } } },
    });
    const id = created.session_id;
    const pidBefore = svc.sessions.get(id)!.chromium.pid;
    const recording = replaySkipReason ? undefined : await kernel.browsers.replays.start(id, { framerate: 10 });

    let browser = await chromium.connectOverCDP(created.cdp_ws_url);
    let page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(origin);
    await page.evaluate(() => localStorage.setItem('kept', 'here too'));
    expect(await page.$('#extension-mark')).toBeNull();
    await browser.close();

    await kernel.browsers.loadExtensions(id, { extensions: [{ name: 'marker', zip_file: await toFile(await zipOf(marker), 'marker.zip') }] });
    expect(svc.sessions.get(id)!.chromium.pid).not.toBe(pidBefore);
    const after = await kernel.browsers.retrieve(id);
    expect(after).toMatchObject({ session_id: id, cdp_ws_url: created.cdp_ws_url });
    expect(after.deleted_at).toBeUndefined();

    // The same CDP URL reaches the new Chromium: the extension marks the page, the user data is the session's.
    browser = await chromium.connectOverCDP(created.cdp_ws_url);
    page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(origin);
    await page.waitForSelector('#extension-mark', { state: 'attached', timeout: 15_000 });
    expect(await page.evaluate(() => document.cookie)).toContain('kept=yes');
    expect(await page.evaluate(() => localStorage.getItem('kept'))).toBe('here too');
    await page.evaluate(() => console.log('after the restart'));
    await page.goto(`${origin}/green`);
    await browser.close();
    // Telemetry's collector follows the new browser, and the restart is no crash.
    const events = async () => (await svc.call('GET', `/browsers/${id}/telemetry/events?limit=1000`)).body as Array<{ event: { type: string; data?: any } }>;
    await eventually(async () => ((await events()).some((e) => e.event.type === 'console_log' && e.event.data?.text === 'after the restart') ? true : undefined), 20_000);
    expect((await events()).filter((e) => e.event.type === 'service_crashed')).toEqual([]);

    // Where the hosted VM puts them; and the API's own views of the browser work on the new one.
    const files = await kernel.browsers.fs.listFiles(id, { path: '/home/kernel/extensions/marker' });
    expect(files.map((f) => f.name).sort()).toEqual(['content.js', 'manifest.json']);
    // Owned as the rest of the session's home is (by `kernel` in the sandbox).
    const stat = await svc.call('POST', `/browsers/${id}/process/exec`, {
      body: { command: 'stat', args: ['-c', '%U', '/home/kernel', '/home/kernel/extensions', '/home/kernel/extensions/marker', '/home/kernel/extensions/marker/content.js'] },
    });
    const owners = Buffer.from(stat.body.stdout_b64, 'base64').toString().trim().split('\n');
    expect(new Set(owners).size, owners.join(' ')).toBe(1);
    const shot = await kernel.browsers.computer.captureScreenshot(id);
    expect((await shot.blob()).size).toBeGreaterThan(100);
    const ran = await kernel.browsers.playwright.execute(id, { code: 'return await page.evaluate(() => !!document.getElementById("extension-mark"))' });
    expect(ran).toMatchObject({ success: true, result: true });

    // A second load adds to the first: a service worker target appears beside the page marker.
    await kernel.browsers.loadExtensions(id, { extensions: [{ name: 'worker', zip_file: await toFile(await zipOf(worker), 'worker.zip') }] });
    const targets = await eventually(async () => {
      const list = (await svc.call('GET', `/browsers/${id}/cdp/json/list`)).body as Array<{ type: string; url: string }>;
      return list.some((t) => t.type === 'service_worker' && t.url.endsWith('/sw.js')) ? list : undefined;
    }, 20_000);
    expect(targets.length).toBeGreaterThan(0);
    browser = await chromium.connectOverCDP(created.cdp_ws_url);
    page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(origin);
    await page.waitForSelector('#extension-mark', { state: 'attached', timeout: 15_000 });
    await page.goto(`${origin}/green`);
    await sleep(1500);
    await browser.close();

    if (recording) {
      // One recording across both restarts, and the screencast followed the new browser: it ends on the green page.
      const listed = await kernel.browsers.replays.list(id);
      expect(listed.map((r) => r.replay_id)).toEqual([recording.replay_id]);
      await kernel.browsers.replays.stop(recording.replay_id, { id });
      const file = await download(svc, id, recording.replay_id, dir);
      const last = await colourAt(file, (await probe(file)).duration_s - 0.3);
      expect(last[1]).toBeGreaterThan(150);
      expect(last[0]).toBeLessThan(60);
    }
    await kernel.browsers.deleteByID(id);
  });

  it('a leased pool browser restarted with extensions is replaced on release, not reused', async () => {
    await kernel.browserPools.create({ name: 'ext-pool', size: 1, headless: true });
    const leased = await kernel.browserPools.acquire('ext-pool', { acquire_timeout_seconds: 60 });
    await kernel.browsers.loadExtensions(leased.session_id, { extensions: [{ name: 'marker', zip_file: await toFile(await zipOf(marker), 'm.zip') }] });
    await kernel.browserPools.release('ext-pool', { session_id: leased.session_id, reuse: true });
    const ended = await kernel.browsers.retrieve(leased.session_id, { include_deleted: true });
    expect(ended.deleted_at).toBeTruthy();
    const next = await kernel.browserPools.acquire('ext-pool', { acquire_timeout_seconds: 60 });
    expect(next.session_id).not.toBe(leased.session_id);
    await kernel.browserPools.delete('ext-pool', { force: true });
  });

  it.skipIf(!headful.available)('a headful browser restarts on its own screen, input and extension working', async () => {
    const created = await kernel.browsers.create({ headless: false, timeout_seconds: 120, viewport: { width: 1024, height: 768 } });
    const display = svc.sessions.get(created.session_id)!.screen!.display;
    await kernel.browsers.loadExtensions(created.session_id, { extensions: [{ name: 'marker', zip_file: await toFile(await zipOf(marker), 'm.zip') }] });
    expect(svc.sessions.get(created.session_id)!.screen!.display).toBe(display);
    const browser = await chromium.connectOverCDP(created.cdp_ws_url);
    const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(origin);
    await page.waitForSelector('#extension-mark', { state: 'attached', timeout: 15_000 });
    await browser.close();
    await kernel.browsers.computer.moveMouse(created.session_id, { x: 100, y: 100 });
    expect(await kernel.browsers.computer.getMousePosition(created.session_id)).toEqual({ x: 100, y: 100 });
    await kernel.browsers.deleteByID(created.session_id);
  });

  // Unsandboxed, a Chromium started after the session's folder was removed would simply run on.
  it.each(['sandboxed', 'unsandboxed'] as const)('a %s browser deleted while it restarts ends once the restart is through, leaving nothing running', async (mode) => {
    const service = mode === 'sandboxed' ? svc : await startTestService({ sandbox: 'off' });
    const client = new Kernel({ apiKey: service.apiKey, baseURL: service.baseUrl, maxRetries: 0 });
    try {
      const { session_id: id } = await client.browsers.create({ headless: true, timeout_seconds: 120 });
      // Set up first (the headless shell's downloads connection): a delete before the restart has begun
      // ends the session without it, and the load answers 404.
      await service.sessions.get(id)!.ready;
      const loading = client.browsers.loadExtensions(id, { extensions: [{ name: 'marker', zip_file: await toFile(await zipOf(marker), 'm.zip') }] }).catch((e: unknown) => e);
      await eventually(() => (service.sessions.get(id)?.restarting ? true : undefined), 30_000, 5);
      await client.browsers.deleteByID(id);
      // The restart is finished first (the call succeeds), then the browser ends.
      expect(await loading).toBeFalsy();
      expect((await client.browsers.retrieve(id, { include_deleted: true })).deleted_at).toBeTruthy();
      expect(service.sessions.get(id)).toBeUndefined();
      // Reaped, not merely signalled: a loaded machine may take a moment to get there.
      await eventually(async () => ((await processesMentioning(join(service.dataDir, 'sessions', id))).length === 0 ? true : undefined), 30_000);
    } finally {
      if (service !== svc) await service.close();
    }
  });

  it("a link the session's own processes planted leads nothing out of its view", async () => {
    const { session_id: id } = await kernel.browsers.create({ headless: true, timeout_seconds: 120 });
    // A host folder outside what the view has (/home/kernel, /tmp), where the service itself could write.
    const outside = await mkdtemp(join(homedir(), '.bcs-outside-'));
    try {
      const ln = await svc.call('POST', `/browsers/${id}/process/exec`, { body: { command: 'ln', args: ['-s', outside, '/home/kernel/extensions'] } });
      expect(ln.body.exit_code).toBe(0);
      const res = await post(id, [['extensions[0][name]', 'escape'], ['extensions[0][zip_file]', await zipOf(marker)]]);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.code).toBe('path_outside_view');
      expect(await readdir(outside)).toEqual([]);
      // The browser runs on, started again as it was.
      const after = await kernel.browsers.retrieve(id);
      expect(after.deleted_at).toBeUndefined();
      const browser = await chromium.connectOverCDP(after.cdp_ws_url);
      await browser.close();
    } finally {
      await rm(outside, { recursive: true, force: true });
      await kernel.browsers.deleteByID(id);
    }
  });

  it('refuses bad names and zips with 400s naming the field, and the browser runs on unrestarted', async () => {
    const { session_id: id } = await kernel.browsers.create({ headless: true, timeout_seconds: 120 });
    const pid = svc.sessions.get(id)!.chromium.pid;
    const good = await zipOf(marker);
    const cases: Array<[Array<[string, Buffer | string]>, string]> = [
      [[['extensions[0][name]', '..'], ['extensions[0][zip_file]', good]], 'body.extensions.0.name'],
      [[['extensions[0][name]', 'a/b'], ['extensions[0][zip_file]', good]], 'body.extensions.0.name'],
      [[['extensions[0][name]', 'nozip']], 'body.extensions.0.zip_file'],
      [[['extensions[0][zip_file]', good]], 'body.extensions.0.name'],
      [[['extensions[0][name]', 'bad'], ['extensions[0][zip_file]', await zipOf({ 'readme.txt': 'no manifest' })]], 'body.extensions.0.zip_file'],
      [[['extensions[0][name]', 'bad'], ['extensions[0][zip_file]', Buffer.from('not a zip')]], 'body.extensions.0.zip_file'],
      [
        [['extensions[0][name]', 'twice'], ['extensions[0][zip_file]', good], ['extensions[1][name]', 'twice'], ['extensions[1][zip_file]', good]],
        'body.extensions.1.name',
      ],
      [[['something', 'else']], 'body.something'],
      [[], 'body.extensions'],
    ];
    for (const [parts, field] of cases) {
      const res = await post(id, parts);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), message: expect.stringContaining(field) });
    }
    const json = await svc.call('POST', `/browsers/${id}/extensions`, { body: { extensions: [] } });
    expect(json.status).toBe(400);
    expect(svc.sessions.get(id)!.chromium.pid).toBe(pid);
    const err = await kernel.browsers
      .loadExtensions(id, { extensions: [{ name: '.', zip_file: await toFile(good, 'x.zip') }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    await expect(kernel.browsers.loadExtensions('nope', { extensions: [{ name: 'x', zip_file: await toFile(good, 'x.zip') }] })).rejects.toBeInstanceOf(NotFoundError);
    await kernel.browsers.deleteByID(id);
  });
});

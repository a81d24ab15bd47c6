// Warm standby: POST /browsers with default launch options adopts a browser launched ahead of time.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, isAlive, startTestService, type TestService, processesMentioning } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ standby: 1 });
});
afterAll(async () => {
  await svc.close();
});

const warmedUp = () => eventually(() => (svc.standby.available === 1 ? true : undefined), 30_000, 20);


describe('warm standby', () => {
  it('hands a standby browser to a plain create: fresh, working, and refilled in the background', async () => {
    await warmedUp();
    const handoffs = svc.standby.handoffs;
    const before = Date.now();
    const res = await svc.call('POST', '/browsers', { body: { name: 'warm', tags: { via: 'standby' }, timeout_seconds: 120 } });
    expect(res.status).toBe(200);
    expect(svc.standby.handoffs).toBe(handoffs + 1);
    const b = res.body;
    expect(b).toMatchObject({ name: 'warm', tags: { via: 'standby' }, timeout_seconds: 120, headless: true });
    // The session starts at the handoff: its record, clock and start hooks, not the launch's.
    expect(Date.parse(b.created_at)).toBeGreaterThanOrEqual(before - 5);
    // Not the launch's: the browser was launched before this request was sent.
    expect(b.usage.uptime_ms).toBeLessThanOrEqual(Date.now() - before);
    // Its start hooks ran once, at the handoff: the session's service log says so first.
    const serviceLog = await svc.call('GET', `/browsers/${b.session_id}/logs/stream?source=supervisor&supervisor_process=service&follow=false`);
    const starts = String(serviceLog.body).split('\n').filter((l) => l.startsWith('data:') && l.includes('session started'));
    expect(starts, String(serviceLog.body)).toHaveLength(1);
    // The standby's pid file (for recovery after a hard stop) is gone from what is now the session's view.
    await eventually(async () => {
      const root = await svc.call('GET', `/browsers/${b.session_id}/fs/list_files?path=/`);
      return root.body.some((f: { name: string }) => f.name === 'browser.pid') ? undefined : true;
    }, 30_000, 20);

    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    const context = browser.contexts()[0]!;
    expect(context.pages().map((p) => p.url())).toEqual(['about:blank']);
    expect(await context.cookies()).toEqual([]);
    const page = context.pages()[0]!;
    await page.goto('data:text/html,<title>warm</title>');
    expect(await page.title()).toBe('warm');
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([1920, 1080]);
    await browser.close();

    await warmedUp();
    expect((await svc.call('DELETE', '/browsers/warm')).status).toBe(204);
    // Other launch options launch cold: the standby is not handed out. (How much faster a handoff is than a
    // launch depends on the machine's load: bench/pool-latency.ts measures it, no test times it.)
    const cold = await svc.call('POST', '/browsers', { body: { stealth: true } });
    expect(cold.status).toBe(200);
    expect(svc.standby.handoffs).toBe(handoffs + 1);
    await svc.call('DELETE', `/browsers/${cold.body.session_id}`);
  });

  it('launches cold when the launch options differ, and adopts when they are equal but spelled out', async () => {
    await warmedUp();
    const handoffs = svc.standby.handoffs;
    for (const body of [{ viewport: { width: 1280, height: 800 } }, { stealth: true }, { kiosk_mode: true }, { start_url: 'about:blank#x' }]) {
      const res = await svc.call('POST', '/browsers', { body });
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(svc.standby.handoffs, JSON.stringify(body)).toBe(handoffs);
      await svc.call('DELETE', `/browsers/${res.body.session_id}`);
    }
    expect(svc.standby.available).toBe(1);
    const spelled = await svc.call('POST', '/browsers', { body: { headless: true, stealth: false, kiosk_mode: false, viewport: { width: 1920, height: 1080 } } });
    expect(svc.standby.handoffs).toBe(handoffs + 1);
    expect(spelled.body.viewport).toEqual({ width: 1920, height: 1080 });
    await svc.call('DELETE', `/browsers/${spelled.body.session_id}`);
  });

  it('gives the browser back when the name is taken, and replaces a standby browser that dies', async () => {
    await warmedUp();
    const first = await svc.call('POST', '/browsers', { body: { name: 'taken' } });
    await warmedUp();
    const handoffs = svc.standby.handoffs;
    const clash = await svc.call('POST', '/browsers', { body: { name: 'taken' } });
    expect(clash.status).toBe(409);
    expect(svc.standby.available).toBe(1);
    expect(svc.standby.handoffs).toBe(handoffs);
    await svc.call('DELETE', `/browsers/${first.body.session_id}`);

    const killed = await processesMentioning(`${svc.dataDir}/sessions/`);
    for (const pid of killed) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch (err) {
        // Gone already: killing the browser took its helpers listed after it.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    }
    await eventually(async () => {
      const fresh = (await processesMentioning(`${svc.dataDir}/sessions/`)).filter((pid) => !killed.includes(pid));
      return svc.standby.available === 1 && fresh.length > 0 && killed.every((pid) => !isAlive(pid)) ? true : undefined;
    }, 30_000);
    const after = await svc.call('POST', '/browsers');
    expect(after.status).toBe(200);
    expect(svc.standby.handoffs).toBe(handoffs + 1);
    await svc.call('DELETE', `/browsers/${after.body.session_id}`);
  });

  it('a create that finds the standby still launching adopts that launch instead of starting another', async () => {
    const fresh = await startTestService({ standby: 1 });
    try {
      const launching = fresh.standby.available === 0;
      const res = await fresh.call('POST', '/browsers', { body: { name: 'early' } });
      expect(res.status).toBe(200);
      expect(fresh.standby.handoffs, `the standby was ${launching ? 'launching' : 'ready'}`).toBe(1);
      const browser = await chromium.connectOverCDP(res.body.cdp_ws_url);
      expect(browser.contexts()[0]!.pages().map((p) => p.url())).toEqual(['about:blank']);
      await browser.close();
      await eventually(() => (fresh.standby.available === 1 ? true : undefined), 30_000);
    } finally {
      await fresh.close();
    }
  });

  it('after a hard stop, the next start kills the standby browsers the last run left', async () => {
    const first = await startTestService({ standby: 1 });
    await eventually(() => (first.standby.available === 1 ? true : undefined), 30_000);
    const sessionsDir = join(first.dataDir, 'sessions');
    const pids: number[] = [];
    for (const id of await readdir(sessionsDir)) {
      const pid = Number(await readFile(join(sessionsDir, id, 'browser.pid'), 'utf8').catch(() => ''));
      if (pid) pids.push(pid);
    }
    expect(pids).toHaveLength(1);
    // A second service on the same data dir plays the restarted service; the first never got to clean up.
    const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, standby: 0 });
    try {
      await eventually(() => (isAlive(pids[0]!) ? undefined : true), 30_000);
    } finally {
      await second.close();
      await first.close();
    }
  });

  it('is off with standby: 0, and leaves no Chromium behind when the service closes', async () => {
    const off = await startTestService({ standby: 0 });
    const on = await startTestService({ standby: 2 });
    try {
      await eventually(() => (on.standby.available === 2 ? true : undefined), 30_000);
      expect(off.standby.available).toBe(0);
      expect((await processesMentioning(off.dataDir)).length).toBe(0);
      expect((await processesMentioning(on.dataDir)).length).toBeGreaterThan(0);
      const res = await off.call('POST', '/browsers');
      expect(res.status).toBe(200);
      expect(off.standby.handoffs).toBe(0);
    } finally {
      await off.close();
      await on.close();
    }
    // close() waits for each browser's process group leader; the rest of a sandbox's PID namespace is
    // killed by the kernel with it and may take a few ms more to leave /proc on a loaded machine.
    await eventually(async () => ((await processesMentioning(off.dataDir)).length === 0 ? true : undefined), 30_000, 50);
    await eventually(async () => ((await processesMentioning(on.dataDir)).length === 0 ? true : undefined), 30_000, 50);
  });
});

// What the embedded service of `bcs run` does: one browser launched as it starts, for the run's first browser.
describe('a standby launched once', () => {
  it('goes to the first default create and is not refilled', async () => {
    const once = await startTestService({ standby: 1, standbyOnce: true });
    try {
      await eventually(() => (once.standby.available === 1 ? true : undefined), 30_000, 20);
      const res = await once.call('POST', '/browsers');
      expect(res.status).toBe(200);
      expect(once.standby.handoffs).toBe(1);
      expect(once.standby.wanted).toBe(0);
      // Nothing launches after it: a second default create launches its own.
      const second = await once.call('POST', '/browsers');
      expect(second.status).toBe(200);
      expect(once.standby.handoffs).toBe(1);
      expect(once.standby.available).toBe(0);
    } finally {
      await once.close();
    }
  });

  it('is closed by a first create with settings of its own, launched or still launching', async () => {
    const once = await startTestService({ standby: 1, standbyOnce: true });
    try {
      const res = await once.call('POST', '/browsers', { body: { viewport: { width: 1280, height: 800 } } });
      expect(res.status).toBe(200);
      expect(once.standby.wanted).toBe(0);
      // Only the session's own browser is left (its process tree mentions its own folder, not the standby's).
      await eventually(() => (once.standby.available === 0 ? true : undefined), 30_000, 20);
      const plain = await once.call('POST', '/browsers');
      expect(plain.status).toBe(200);
      expect(once.standby.handoffs).toBe(0);
    } finally {
      await once.close();
    }
  });
});

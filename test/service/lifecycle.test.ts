import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { eventually, isAlive, startTestService, processesMentioning } from '../helpers/service.js';


describe('session lifecycle', () => {
  it('ends a session after timeout_seconds without activity, and an open CDP connection keeps it alive', async () => {
    const svc = await startTestService();
    try {
      const idle = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 10 } })).body;
      // Its clock starts with its create: timed from here, a slow second create or connect cannot shorten it.
      const started = Date.now();
      const held = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 10 } })).body;
      const client = await chromium.connectOverCDP(held.cdp_ws_url);
      // Polled through the list: reading the session itself would count as activity.
      const ended = await eventually(async () => {
        const res = await svc.call('GET', '/browsers?status=deleted');
        return res.body.find((s: { session_id: string }) => s.session_id === idle.session_id);
      }, 20_000, 250);
      const elapsed = Date.now() - started;
      expect(ended.end_reason).toBe('timeout');
      expect(ended.end_detail).toContain('10 s');
      expect(elapsed).toBeGreaterThan(9_000);
      expect(elapsed).toBeLessThan(16_000);
      expect((await svc.call('GET', `/browsers/${held.session_id}`)).status).toBe(200);
      await client.close();
    } finally {
      await svc.close();
    }
  }, 40_000);

  it('reports a session whose Chromium was killed as ended, with the reason', async () => {
    const svc = await startTestService();
    try {
      const b = (await svc.call('POST', '/browsers')).body;
      const pid = svc.sessions.get(b.session_id)!.chromium.pid;
      process.kill(pid, 'SIGKILL');
      const ended = await eventually(async () => {
        const res = await svc.call('GET', `/browsers/${b.session_id}?include_deleted=true`);
        return res.body.deleted_at ? res.body : undefined;
      });
      expect(ended.end_reason).toBe('browser_exited');
      expect(ended.end_detail).toContain('SIGKILL');
      expect((await svc.call('GET', '/browsers')).body.map((s: { session_id: string }) => s.session_id)).not.toContain(b.session_id);
    } finally {
      await svc.close();
    }
  });

  it('leaves no Chromium process behind when the service closes', async () => {
    const svc = await startTestService();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await svc.call('POST', '/browsers')).body.session_id);
    const client = await chromium.connectOverCDP((await svc.call('GET', `/browsers/${ids[0]}`)).body.cdp_ws_url);
    const pids = ids.map((id) => svc.sessions.get(id)!.chromium.pid);
    expect((await processesMentioning(svc.dataDir)).length).toBeGreaterThanOrEqual(3);
    await svc.close();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(await processesMentioning(svc.dataDir)).toEqual([]);
    expect(client.isConnected()).toBe(false);
  });

  it('after a hard stop, the next start kills the orphaned browsers and records why their sessions ended', async () => {
    const first = await startTestService();
    const b = (await first.call('POST', '/browsers')).body;
    const pid = first.sessions.get(b.session_id)!.chromium.pid;
    // A second service on the same data dir plays the restarted service; the first never got to clean up.
    const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey });
    try {
      await eventually(() => (isAlive(pid) ? undefined : true), 30_000);
      const res = await second.call('GET', `/browsers/${b.session_id}?include_deleted=true`);
      expect(res.body.end_reason).toBe('service_restart');
    } finally {
      await second.close();
      await first.close();
    }
  });
});

// A recording belongs to the pool lease that started it: releasing the browser ends and keeps it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { replaySkipReason } from '../helpers/replays.js';

describe.skipIf(replaySkipReason)('replays on pool browsers', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc.close();
  });

  it('stops and keeps the recording when the lease is released for reuse', async () => {
    expect((await svc.call('POST', '/browser_pools', { body: { name: 'rec-pool', size: 1, headless: true } })).status).toBe(200);
    await expect.poll(async () => (await svc.call('GET', '/browser_pools/rec-pool')).body.available_count, { timeout: 30_000 }).toBe(1);
    const lease = (await svc.call('POST', '/browser_pools/rec-pool/acquire', { body: {} })).body;
    const replay = (await svc.call('POST', `/browsers/${lease.session_id}/replays`, { body: { framerate: 5 } })).body;
    await new Promise((r) => setTimeout(r, 1000));
    expect((await svc.call('POST', '/browser_pools/rec-pool/release', { body: { session_id: lease.session_id, reuse: true } })).status).toBe(204);
    const list = (await svc.call('GET', `/browsers/${lease.session_id}/replays`)).body;
    const row = list.find((r: { replay_id: string }) => r.replay_id === replay.replay_id);
    expect(row.finished_at).toBeTruthy();
    const video = await fetch(`${svc.baseUrl}/browsers/${lease.session_id}/replays/${replay.replay_id}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    // The next holder can record again on the same browser.
    const next = (await svc.call('POST', '/browser_pools/rec-pool/acquire', { body: {} })).body;
    expect(next.session_id).toBe(lease.session_id);
    expect((await svc.call('POST', `/browsers/${next.session_id}/replays`, { body: {} })).status).toBe(200);
  });
});

// Replays survive what ends them early: ffmpeg killed, the session deleted, the service dying.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { ANIMATED_PAGE, download, probe, recorderPid, replaySkipReason, sleep } from '../helpers/replays.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

describe.skipIf(replaySkipReason)('replays that end the hard way', () => {
  let svc: TestService;
  let dir: string;
  const replays = (id: string) => `/browsers/${id}/replays`;
  const newSession = async (s: TestService) => {
    const res = await s.call('POST', '/browsers', { body: { viewport: { width: 640, height: 480 }, start_url: ANIMATED_PAGE } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.session_id as string;
  };

  beforeAll(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'bcs-replays-hard-'));
  });
  afterAll(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a kill -9 of ffmpeg leaves a playable video and a finished replay', async () => {
    const id = await newSession(svc);
    const { body: started } = await svc.call('POST', replays(id), { body: { framerate: 10 } });
    await svc.call('POST', `${replays(id)}/${started.replay_id}/markers`, { body: { name: 'before the crash' } });
    // Past the second keyframe (2 s), with room for an ffmpeg running behind on a busy machine.
    await sleep(3500);
    const pid = await recorderPid(started.replay_id);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');

    const finished = await eventually(async () => {
      const [r] = (await svc.call('GET', replays(id))).body;
      return r.finished_at ? r : undefined;
    });
    expect(finished).toMatchObject({ end_reason: 'recorder_exited', end_detail: expect.stringContaining('SIGKILL') });
    const info = await probe(await download(svc, id, started.replay_id, dir));
    // Fragments close at each keyframe (every 2 s): at least the first one made it.
    expect(info.duration_s).toBeGreaterThanOrEqual(1.9);
    expect(info.chapters.map((c) => c.title)).toEqual(['start', 'before the crash']);
    // The session itself carries on and can record again.
    const next = await svc.call('POST', replays(id), { body: {} });
    expect(next.status).toBe(200);
    await svc.call('POST', `${replays(id)}/${next.body.replay_id}/stop`);
  });

  it('deleting the session stops and keeps its recording', async () => {
    const id = await newSession(svc);
    const { body: started } = await svc.call('POST', replays(id), { body: {} });
    await sleep(1500);
    await svc.call('POST', `${replays(id)}/${started.replay_id}/markers`, { body: { name: 'last words' } });
    expect((await svc.call('DELETE', `/browsers/${id}`)).status).toBe(204);

    const [replay] = (await svc.call('GET', replays(id))).body;
    expect(replay).toMatchObject({ replay_id: started.replay_id, end_reason: 'session_ended', finished_at: expect.any(String) });
    const info = await probe(await download(svc, id, started.replay_id, dir));
    expect(Math.abs(info.duration_s * 1000 - replay.duration_ms)).toBeLessThan(100);
    expect(info.duration_s).toBeGreaterThan(1.4);
    const vtt = await fetch(`${svc.baseUrl}${replays(id)}/${started.replay_id}/markers.vtt`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(await vtt.text()).toContain('last words');
    // A deleted session cannot start a new recording.
    expect((await svc.call('POST', replays(id), { body: {} })).status).toBe(404);
  });

  it('a service that died mid-recording finalises the replay at its next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-replays-restart-'));
    const apiKey = `bcs_${randomBytes(24).toString('base64url')}`;
    const { child, done } = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent'], { BCS_API_KEY: apiKey });
    onTestFinished(() => void child.kill('SIGKILL'));
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    // A cold `bcs serve` takes seconds on a busy machine.
    const baseUrl = await eventually(() => /^BCS_BASE_URL=(\S+)$/m.exec(out)?.[1], 45_000);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }).then((r) => r.json() as Promise<any>);
    const session = await call('POST', '/browsers', { viewport: { width: 640, height: 480 }, start_url: ANIMATED_PAGE });
    const id = session.session_id as string;
    const started = await call('POST', replays(id), { framerate: 10 });
    await sleep(2500);
    await call('POST', `${replays(id)}/${started.replay_id}/markers`, { name: 'then it died' });
    child.kill('SIGKILL');
    await done;

    // The CLI above kept its state in SQLite, whatever database the run puts test services on.
    const second = await startTestService({ dataDir, apiKey, store: 'sqlite' });
    try {
      // Recovery runs before the service listens: the replay is finished by the time anyone asks.
      const [replay] = (await second.call('GET', replays(id))).body;
      expect(replay).toMatchObject({ replay_id: started.replay_id, end_reason: 'service_restart', finished_at: expect.any(String) });
      expect(replay.markers.map((m: { name: string }) => m.name)).toEqual(['then it died']);
      const info = await probe(await download(second, id, started.replay_id, dir));
      expect(info.duration_s).toBeGreaterThanOrEqual(1.9);
      expect(info.chapters.map((c) => c.title)).toEqual(['start', 'then it died']);
    } finally {
      await second.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

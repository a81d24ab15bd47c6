// Replays of headful sessions: ffmpeg grabs the session's own X display (x11grab).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { findFfmpeg } from '../../src/service/host/recording/ffmpeg.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { ANIMATED_PAGE, download, probe, replaySkipReason, sleep } from '../helpers/replays.js';
import { startTestService, type TestService } from '../helpers/service.js';

const support = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
const x11grab = (await findFfmpeg()).ffmpeg?.x11grab ?? false;
const skip = replaySkipReason ?? (!support.available ? support.reason : !x11grab ? 'ffmpeg has no x11grab' : undefined);
if (skip && !replaySkipReason) console.warn(`skipping headful replay tests: ${skip}`);

describe.skipIf(skip)('replays of headful sessions (x11grab)', () => {
  let svc: TestService;
  let dir: string;

  beforeAll(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'bcs-replays-x11-'));
  });
  afterAll(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('records the whole screen for as long as asked, with markers as chapters', async () => {
    const res = await svc.call('POST', '/browsers', { body: { headless: false, viewport: { width: 800, height: 600 }, start_url: ANIMATED_PAGE } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.session_id;
    const started = await svc.call('POST', `/browsers/${id}/replays`, { body: { framerate: 15 } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const rid = started.body.replay_id;
    await sleep(1000);
    await svc.call('POST', `/browsers/${id}/replays/${rid}/markers`, { body: { name: 'one second in' } });
    await sleep(2000);
    const stopAt = Date.now();
    const { body: stopped } = await svc.call('POST', `/browsers/${id}/replays/${rid}/stop`);
    const wallMs = stopAt - Date.parse(started.body.started_at);

    const info = await probe(await download(svc, id, rid, dir));
    expect(info).toMatchObject({ codec: 'h264', width: 800, height: 600 });
    expect(Math.abs(info.duration_s * 1000 - wallMs) / wallMs, `video ${info.duration_s} s, wall ${wallMs} ms`).toBeLessThan(0.1);
    const at = stopped.markers[0].offset_ms;
    expect(info.chapters).toEqual([
      { start_ms: 0, end_ms: at, title: 'start' },
      { start_ms: at, end_ms: expect.any(Number), title: 'one second in' },
    ]);
    // About a second in. The bound allows for x11grab's first frame (the video's zero) arriving late when
    // the two cores are busy with other suites; exactness is checked by the chapters above.
    expect(Math.abs(stopped.markers[0].offset_ms - 1000)).toBeLessThan(1500);
    await svc.call('DELETE', `/browsers/${id}`);
  });
});

// Replays of headless sessions: CDP screencast into ffmpeg, real Chromium, real videos checked with ffprobe.
import Kernel, { ConflictError } from '@onkernel/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { ANIMATED_PAGE, STATIC_PAGE, colourAt, download, lastColour, probe, replaySkipReason, sleep } from '../helpers/replays.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

describe.skipIf(replaySkipReason)('replays of headless sessions', () => {
  let svc: TestService;
  let dir: string;
  const created: string[] = [];

  const newSession = async (startUrl: string) => {
    const res = await svc.call('POST', '/browsers', { body: { viewport: { width: 800, height: 600 }, start_url: startUrl, timeout_seconds: 300 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    created.push(res.body.session_id);
    return res.body.session_id as string;
  };
  const replays = (id: string) => `/browsers/${id}/replays`;

  beforeAll(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'bcs-replays-'));
  });
  afterAll(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Records `ms` of the session; returns the finished replay and the wall time the service recorded. */
  const record = async (id: string, ms: number, body: object = {}) => {
    const started = await svc.call('POST', replays(id), { body });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    await sleep(ms);
    const stopAt = Date.now();
    const stopped = await svc.call('POST', `${replays(id)}/${started.body.replay_id}/stop`);
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    return { started: started.body, stopped: stopped.body, wallMs: stopAt - Date.parse(started.body.started_at) };
  };

  it.each([
    ['an animated page', ANIMATED_PAGE],
    ['a static page', STATIC_PAGE],
  ])('records %s into an MP4 as long as the wall time recorded', async (_what, url) => {
    const id = await newSession(url);
    const clientStart = Date.now();
    const { started, stopped, wallMs } = await record(id, 3000);
    const clientWall = Date.now() - clientStart;
    expect(started).toMatchObject({ replay_id: expect.any(String), finished_at: null, markers: [] });
    expect(started.replay_view_url).toBe(`${svc.baseUrl}/browsers/${id}/replays/${started.replay_id}`);
    expect(Date.parse(started.started_at)).toBeGreaterThanOrEqual(clientStart);
    expect(stopped.finished_at).toBeTruthy();
    expect(stopped.end_reason).toBe('stopped');

    const info = await probe(await download(svc, id, started.replay_id, dir));
    expect(info).toMatchObject({ codec: 'h264', width: 800, height: 600 });
    expect(Math.abs(info.duration_s * 1000 - wallMs) / wallMs, `video ${info.duration_s} s, wall ${wallMs} ms`).toBeLessThan(0.1);
    expect(info.duration_s * 1000).toBeLessThanOrEqual(clientWall);
    expect(Math.abs(stopped.duration_ms - info.duration_s * 1000)).toBeLessThan(100);
  });

  it('answers 202 with Retry-After while recording, stops idempotently, and 409s a second recording', async () => {
    const id = await newSession(STATIC_PAGE);
    const started = await svc.call('POST', replays(id), { body: { framerate: 10 } });
    expect(started.status).toBe(200);
    const rid = started.body.replay_id;

    const second = await svc.call('POST', replays(id), { body: {} });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('conflict');

    const early = await fetch(`${svc.baseUrl}${replays(id)}/${rid}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(early.status).toBe(202);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.headers.get('x-recording-started-at')).toBe(started.body.started_at);

    const listed = await svc.call('GET', replays(id));
    expect(listed.body).toEqual([expect.objectContaining({ replay_id: rid, finished_at: null, duration_ms: expect.any(Number) })]);

    await sleep(1000);
    const [a, b] = await Promise.all([svc.call('POST', `${replays(id)}/${rid}/stop`), svc.call('POST', `${replays(id)}/${rid}/stop`)]);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
    const again = await svc.call('POST', `${replays(id)}/${rid}/stop`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(a.body);

    // Players seek with ranges.
    const head = await fetch(`${svc.baseUrl}${replays(id)}/${rid}`, { headers: { authorization: `Bearer ${svc.apiKey}`, range: 'bytes=0-99' } });
    expect(head.status).toBe(206);
    expect(head.headers.get('content-range')).toMatch(/^bytes 0-99\/\d+$/);
    const first = Buffer.from(await head.arrayBuffer());
    expect(first.length).toBe(100);
    expect(first.toString('latin1', 4, 8)).toBe('ftyp');

    // Once stopped, the session may record again.
    const next = await svc.call('POST', replays(id), { body: {} });
    expect(next.status).toBe(200);
    await svc.call('POST', `${replays(id)}/${next.body.replay_id}/stop`);
    expect((await svc.call('GET', replays(id))).body.map((r: { replay_id: string }) => r.replay_id)).toEqual([rid, next.body.replay_id]);
  });

  it('keeps markers in the metadata, a WebVTT track and the MP4 chapters', async () => {
    const id = await newSession(ANIMATED_PAGE);
    const started = await svc.call('POST', replays(id), { body: {} });
    const rid = started.body.replay_id;
    const markers = `${replays(id)}/${rid}/markers`;
    await sleep(400);
    const first = await svc.call('POST', markers, { body: { name: 'logged in' } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ name: 'logged in', offset_ms: expect.any(Number), created_at: expect.any(String) });
    expect(first.body.offset_ms).toBeGreaterThanOrEqual(350);
    await sleep(600);
    const later = first.body.offset_ms + 300;
    const at = new Date(Date.parse(started.body.started_at) + later).toISOString();
    expect((await svc.call('POST', markers, { body: { name: 'by <timestamp> & co', timestamp: at } })).body.offset_ms).toBe(later);
    expect((await svc.call('POST', markers, { body: { name: 'early', offset_ms: 100 } })).body.offset_ms).toBe(100);
    await sleep(500);
    const { body: stopped } = await svc.call('POST', `${replays(id)}/${rid}/stop`);

    const names = stopped.markers.map((m: { name: string }) => m.name);
    expect(names).toEqual(['early', 'logged in', 'by <timestamp> & co']);
    expect((await svc.call('GET', replays(id))).body[0].markers).toEqual(stopped.markers);
    expect((await svc.call('GET', markers)).body).toEqual(stopped.markers);

    const vtt = await fetch(`${svc.baseUrl}${markers}.vtt`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
    expect(vtt.headers.get('content-type')).toMatch(/^text\/vtt/);
    const text = await vtt.text();
    const vttTime = (ms: number) => new Date(ms).toISOString().slice(11, 23);
    const [logged, byTime] = [vttTime(first.body.offset_ms), vttTime(later)];
    expect(text).toBe(
      `WEBVTT\n\n1\n00:00:00.100 --> ${logged}\nearly\n\n2\n${logged} --> ${byTime}\nlogged in\n\n` +
        `3\n${byTime} --> ${vttTime(stopped.duration_ms)}\nby &lt;timestamp&gt; &amp; co\n`,
    );

    const info = await probe(await download(svc, id, rid, dir));
    // MP4 chapters start at 0: the stretch before the first marker is a chapter of its own.
    expect(info.chapters.map((c) => c.title)).toEqual(['start', ...names]);
    expect(info.chapters.map((c) => c.start_ms)).toEqual([0, 100, first.body.offset_ms, later]);
    expect(Math.abs(info.chapters[3]!.end_ms - stopped.duration_ms)).toBeLessThan(50);

    // Markers belong to the recording: a finished replay takes no more.
    const late = await svc.call('POST', markers, { body: { name: 'too late' } });
    expect(late.status).toBe(409);
  });

  it('follows the tab being driven: a page opened while recording, shown to the stop', async () => {
    const id = await newSession(STATIC_PAGE);
    const started = await svc.call('POST', replays(id), { body: { framerate: 10 } });
    // The static page fills at least the first second: the new tab cannot exist before it is opened.
    await sleep(1000);
    const browser = await chromium.connectOverCDP((await svc.call('GET', `/browsers/${id}`)).body.cdp_ws_url);
    try {
      const page = await browser.contexts()[0]!.newPage();
      await page.goto(`data:text/html,<body style="background:rgb(0,200,0)">`);
      // No wait: a stop finishes the recorder's switch to the new tab and ends the video on it.
      await svc.call('POST', `${replays(id)}/${started.body.replay_id}/stop`);
    } finally {
      await browser.close();
    }
    const file = await download(svc, id, started.body.replay_id, dir);
    const [before, after] = [await colourAt(file, 0.5), await lastColour(file)];
    expect(before[0]).toBeGreaterThan(200); // the static page: white
    expect(after[0]).toBeLessThan(60); // the new tab: green
    expect(after[1]).toBeGreaterThan(150);
  });

  it('stops by itself at max_duration_in_seconds', async () => {
    const id = await newSession(STATIC_PAGE);
    const started = await svc.call('POST', replays(id), { body: { max_duration_in_seconds: 1, framerate: 5 } });
    const done = await eventually(async () => {
      const [r] = (await svc.call('GET', replays(id))).body;
      return r.finished_at ? r : undefined;
    }, 30_000);
    expect(done).toMatchObject({ replay_id: started.body.replay_id, end_reason: 'max_duration' });
    // At least the second asked for; the stop itself may lag on a loaded machine, not by many seconds.
    expect(done.duration_ms).toBeGreaterThanOrEqual(900);
    expect(done.duration_ms).toBeLessThan(5000);
  });

  it('refuses bad input naming the field', async () => {
    const id = await newSession(STATIC_PAGE);
    const bad = async (path: string, body: unknown, field: string) => {
      const res = await svc.call('POST', path, { body });
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.code).toBe('bad_request');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad(replays(id), { framerate: 0 }, 'body.framerate');
    await bad(replays(id), { framerate: 31 }, 'body.framerate');
    await bad(replays(id), { framerate: 2.5 }, 'body.framerate');
    await bad(replays(id), { max_duration_in_seconds: 3601 }, 'body.max_duration_in_seconds');
    await bad(replays(id), { record_audio: true }, 'body.record_audio');
    await bad(replays(id), { fps: 10 }, 'body.fps');

    const { body: r } = await svc.call('POST', replays(id), { body: {} });
    const markers = `${replays(id)}/${r.replay_id}/markers`;
    await bad(markers, {}, 'body.name');
    await bad(markers, { name: '' }, 'body.name');
    await bad(markers, { name: 'x'.repeat(201) }, 'body.name');
    await bad(markers, { name: 'two\nlines' }, 'body.name');
    await bad(markers, { name: 'n', offset_ms: -1 }, 'body.offset_ms');
    await bad(markers, { name: 'n', offset_ms: 3_600_000 }, 'body.offset_ms');
    await bad(markers, { name: 'n', timestamp: 'yesterday' }, 'body.timestamp');
    await bad(markers, { name: 'n', timestamp: '2001-01-01T00:00:00Z' }, 'body.timestamp');
    await bad(markers, { name: 'n', timestamp: new Date().toISOString(), offset_ms: 1 }, 'body.offset_ms');

    expect((await svc.call('GET', `${replays(id)}/nope`)).status).toBe(404);
    expect((await svc.call('POST', `${replays(id)}/nope/stop`)).status).toBe(404);
    expect((await svc.call('GET', '/browsers/nope/replays')).status).toBe(404);
    expect((await svc.call('POST', '/browsers/nope/replays', { body: {} })).status).toBe(404);
    await svc.call('POST', `${replays(id)}/${r.replay_id}/stop`);
  });

  it('answers recording_unavailable when no usable ffmpeg is found', async () => {
    const saved = process.env.BCS_FFMPEG;
    process.env.BCS_FFMPEG = '/nonexistent/ffmpeg';
    const other = await startTestService();
    try {
      const res = await other.call('POST', '/browsers', { body: {} });
      const start = await other.call('POST', replays(res.body.session_id), { body: {} });
      expect(start.status).toBe(400);
      expect(start.body.code).toBe('recording_unavailable');
      expect(start.body.message).toContain('/nonexistent/ffmpeg');
    } finally {
      if (saved === undefined) delete process.env.BCS_FFMPEG;
      else process.env.BCS_FFMPEG = saved;
      await other.close();
    }
  });

  it('works through the hosted SDK unchanged', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const browser = await kernel.browsers.create({ headless: true, viewport: { width: 640, height: 480 } });
    created.push(browser.session_id);
    const started = await kernel.browsers.replays.start(browser.session_id, { framerate: 10 });
    expect(started.replay_id).toBeTruthy();
    await expect(kernel.browsers.replays.start(browser.session_id)).rejects.toBeInstanceOf(ConflictError);
    await sleep(1000);
    const list = await kernel.browsers.replays.list(browser.session_id);
    expect(list.map((r) => r.replay_id)).toEqual([started.replay_id]);
    await kernel.browsers.replays.stop(started.replay_id, { id: browser.session_id });
    const res = await kernel.browsers.replays.download(started.replay_id, { id: browser.session_id });
    expect(res.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
    expect((await kernel.browsers.replays.list(browser.session_id))[0]!.finished_at).toBeTruthy();
  });
});

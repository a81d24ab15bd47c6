// GET /browsers/{id}/logs/stream: a file of the session's view (tail -F), Chromium's stderr and the
// service's own lines, over SSE as LogEvent frames; bad input; the hosted SDK's logs.stream unchanged.
import Kernel, { BadRequestError } from '@onkernel/sdk';
import { appendFile, chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { SseReader } from '../helpers/sse.js';

type LogEvent = { event: string; message: string; timestamp: string };

let svc: TestService;
let id: string;
beforeAll(async () => {
  svc = await startTestService();
  id = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
});
afterAll(async () => {
  await svc.close();
});

const host = (viewPath: string) => join(svc.sessions.get(id)!.view.root, viewPath);
const open = (query: string, session = id) =>
  SseReader.open<LogEvent>(`${svc.baseUrl}/browsers/${session}/logs/stream?${query}`, { authorization: `Bearer ${svc.apiKey}` });
const messages = (r: SseReader<LogEvent>) => r.frames.map((f) => f.data.message);

describe('logs stream, source=path', () => {
  it('sends what the file holds, then each line appended, following rotation and truncation like tail -F', async () => {
    await mkdir(host('/tmp/app'), { recursive: true });
    await writeFile(host('/tmp/app/run.log'), 'first\nsecond\n');
    const { res, reader } = await open('source=path&path=/tmp/app/run.log');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const r = reader!;
    await r.waitFor((e) => e.message === 'second');
    expect(r.frames[0]!.data).toMatchObject({ event: 'log', message: 'first' });
    expect(Date.parse(r.frames[0]!.data.timestamp)).toBeGreaterThan(Date.now() - 60_000);

    await appendFile(host('/tmp/app/run.log'), 'third\nhalf');
    await r.waitFor((e) => e.message === 'third');
    await appendFile(host('/tmp/app/run.log'), ' a line\n');
    await r.waitFor((e) => e.message === 'half a line');
    // Rotated away and recreated: what the old file got last is still sent, then the new file from its start.
    await appendFile(host('/tmp/app/run.log'), 'last words\n');
    await rename(host('/tmp/app/run.log'), host('/tmp/app/run.log.1'));
    await writeFile(host('/tmp/app/run.log'), 'after rotation\n');
    await r.waitFor((e) => e.message === 'after rotation');
    // Truncated in place, then written again.
    await writeFile(host('/tmp/app/run.log'), '');
    await new Promise((res) => setTimeout(res, 400));
    await writeFile(host('/tmp/app/run.log'), 'after truncation\n');
    await r.waitFor((e) => e.message === 'after truncation');
    expect(messages(r)).toEqual(['first', 'second', 'third', 'half a line', 'last words', 'after rotation', 'after truncation']);
    r.close();
  });

  it('waits for a file that does not exist yet, and with follow=false sends the file and ends', async () => {
    const waiting = (await open('source=path&path=/home/kernel/later.log')).reader!;
    await new Promise((r) => setTimeout(r, 300));
    await writeFile(host('/home/kernel/later.log'), 'it came\n');
    await waiting.waitFor((e) => e.message === 'it came');
    waiting.close();

    await writeFile(host('/tmp/done.log'), 'one\ntwo\nno newline at the end');
    const once = (await open('source=path&path=/tmp/done.log&follow=false')).reader!;
    await once.ended;
    expect(messages(once)).toEqual(['one', 'two', 'no newline at the end']);
  });

  it('ends the stream when the session ends', async () => {
    const other = (await svc.call('POST', '/browsers')).body.session_id;
    const r = (await open('source=path&path=/tmp/x.log', other)).reader!;
    const s = (await open('source=supervisor&supervisor_process=chromium', other)).reader!;
    await svc.call('DELETE', `/browsers/${other}`);
    await Promise.all([r.ended, s.ended]);
    expect(r.isDone && s.isDone).toBe(true);
  });

  it('answers bad input with 400s naming the field, a missing file with 404, and stays inside the view', async () => {
    const field = async (query: string) => {
      const res = await svc.call('GET', `/browsers/${id}/logs/stream?${query}`);
      expect(res.status).toBe(400);
      return res.body.details[0].field;
    };
    expect(await field('')).toBe('querystring.source');
    expect(await field('source=journal')).toBe('querystring.source');
    expect(await field('source=path')).toBe('querystring.path');
    expect(await field('source=path&path=relative.log')).toBe('querystring.path');
    expect(await field('source=path&path=/tmp')).toBe('querystring.path');
    expect(await field('source=path&path=/tmp/a&follow=maybe')).toBe('querystring.follow');
    expect(await field('source=supervisor')).toBe('querystring.supervisor_process');
    expect(await field('source=supervisor&supervisor_process=neko')).toBe('querystring.supervisor_process');
    const missing = await svc.call('GET', `/browsers/${id}/logs/stream?source=path&path=/tmp/none.log&follow=false`);
    expect(missing.status).toBe(404);
    // `..` cannot climb out of the view: /../../etc/passwd is the view's own /etc/passwd, which is not there.
    const climb = await svc.call('GET', `/browsers/${id}/logs/stream?source=path&path=/../../../../etc/passwd&follow=false`);
    expect(climb.status).toBe(404);
    expect((await svc.call('GET', '/browsers/nope/logs/stream?source=supervisor&supervisor_process=chromium')).status).toBe(404);
  });
});

describe('logs stream, source=supervisor', () => {
  it('streams Chromium’s stderr from its start (follow=false ends after the buffer)', async () => {
    const r = (await open('source=supervisor&supervisor_process=chromium&follow=false')).reader!;
    await r.ended;
    expect(messages(r).some((m) => m.startsWith('DevTools listening on ws://'))).toBe(true);
  });

  it('follows new stderr lines as Chromium writes them', async () => {
    // A Chromium whose stderr also carries whatever the test appends to a file in the session's home (the
    // wrapper runs where Chromium does, in the sandbox as `kernel` too): stands for Chromium writing more.
    const dir = await mkdtemp(join(tmpdir(), 'bcs-stderr-'));
    const wrapper = join(dir, 'chromium-wrapper');
    await chmod(dir, 0o755);
    const userData = 'for a; do case "$a" in --user-data-dir=*) d="${a#--user-data-dir=}";; esac; done';
    await writeFile(wrapper, `#!/bin/sh\n${userData}\ntail -n 0 -F "$d/../inject.log" >&2 &\nexec '${svc.chromium.path}' "$@"\n`, { mode: 0o755 });
    const other = await startTestService({ chromium: wrapper });
    try {
      const b = (await other.call('POST', '/browsers')).body.session_id;
      const r = (
        await SseReader.open<LogEvent>(`${other.baseUrl}/browsers/${b}/logs/stream?source=supervisor&supervisor_process=chromium`, {
          authorization: `Bearer ${other.apiKey}`,
        })
      ).reader!;
      await r.waitFor((e) => e.message.startsWith('DevTools listening'));
      await appendFile(other.sessions.get(b)!.view.hostPath('/home/kernel/inject.log'), 'written later\n');
      await r.waitFor((e) => e.message === 'written later');
      r.close();
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('streams the service’s lines about the session: start, API calls, CDP clients', async () => {
    await svc.call('GET', `/browsers/${id}`);
    const r = (await open('source=supervisor&supervisor_process=service')).reader!;
    await r.waitFor((e) => e.message.startsWith('GET /browsers/{id_or_name} -> 200'));
    expect(messages(r)[0]).toMatch(/^session started: chromium pid \d+, headless$/);
    await svc.call('POST', `/browsers/${id}/computer/get_mouse_position`, { body: {} });
    await r.waitFor((e) => e.message.startsWith('POST /browsers/{id}/computer/get_mouse_position -> 200'));
    r.close();
  });

  it('works through the hosted SDK’s browsers.logs.stream, unchanged', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    await writeFile(host('/tmp/sdk.log'), 'via the sdk\n');
    const stream = await kernel.browsers.logs.stream(id, { source: 'path', path: '/tmp/sdk.log', follow: false });
    const got: string[] = [];
    for await (const e of stream) got.push(e.message);
    expect(got).toEqual(['via the sdk']);
    const live = await kernel.browsers.logs.stream(id, { source: 'supervisor', supervisor_process: 'chromium' });
    for await (const e of live) {
      expect(e.event).toBe('log');
      break;
    }
    await expect(kernel.browsers.logs.stream(id, { source: 'path' })).rejects.toBeInstanceOf(BadRequestError);
  });
});

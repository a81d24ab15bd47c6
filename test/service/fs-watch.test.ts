// fs/watch: events over SSE for changes made through the API and directly on disk.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { SseReader } from '../helpers/sse.js';

let svc: TestService;
let id: string;
let fsBase: string;

beforeAll(async () => {
  svc = await startTestService();
  const created = await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } });
  id = created.body.session_id;
  fsBase = `/browsers/${id}/fs`;
});
afterAll(async () => {
  await svc.close();
});

interface FsEvent {
  type: 'CREATE' | 'WRITE' | 'DELETE' | 'RENAME';
  path: string;
  name: string;
  is_dir: boolean;
}

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(svc.baseUrl + path, { ...init, headers: { authorization: `Bearer ${svc.apiKey}`, ...(init.headers as object) } });
}
const write = (path: string, body: string) =>
  api(`${fsBase}/write_file?path=${encodeURIComponent(path)}`, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });
const host = (viewPath: string) => join(svc.sessions.get(id)!.view.root, viewPath);

/** Reads an SSE response with fetch + a reader, collecting the JSON `data:` frames. */
/** Watch events from the shared SSE reader, matched by their fields. */
class EventReader {
  private readonly sse: SseReader<FsEvent>;
  readonly ended: Promise<void>;

  constructor(readonly res: Response) {
    this.sse = new SseReader<FsEvent>(res);
    this.ended = this.sse.ended;
  }

  get events(): FsEvent[] {
    return this.sse.frames.map((f) => f.data);
  }

  /** Resolves with the first event matching, waiting up to `ms`. */
  async waitFor(match: Partial<FsEvent>, ms = 5000): Promise<FsEvent> {
    const frame = await this.sse.waitFor((e) => Object.entries(match).every(([k, v]) => e[k as keyof FsEvent] === v), ms);
    return frame.data;
  }
}

async function startWatch(path: string, recursive: boolean): Promise<string> {
  const res = await svc.call('POST', `${fsBase}/watch`, { body: { path, recursive } });
  expect(res.status).toBe(201);
  return res.body.watch_id;
}

async function openEvents(watchId: string): Promise<EventReader> {
  const res = await api(`${fsBase}/watch/${watchId}/events`, { headers: { accept: 'text/event-stream' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return new EventReader(res);
}

describe('fs watch events over SSE', () => {
  it('reports create, write, delete and rename with view paths, recursively', async () => {
    await mkdir(host('/home/kernel/w'), { recursive: true });
    const watchId = await startWatch('/home/kernel/w', true);
    const events = await openEvents(watchId);

    expect((await write('/home/kernel/w/a.txt', 'one')).status).toBe(201);
    expect(await events.waitFor({ type: 'CREATE', path: '/home/kernel/w/a.txt' })).toEqual({
      type: 'CREATE',
      path: '/home/kernel/w/a.txt',
      name: 'a.txt',
      is_dir: false,
    });
    await events.waitFor({ type: 'WRITE', path: '/home/kernel/w/a.txt' });

    await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/w/sub' } });
    expect(await events.waitFor({ type: 'CREATE', path: '/home/kernel/w/sub' })).toMatchObject({ is_dir: true, name: 'sub' });
    // The new directory is watched too: a file written into it shows up.
    await new Promise((r) => setTimeout(r, 100));
    await write('/home/kernel/w/sub/deep.txt', 'deep');
    await events.waitFor({ type: 'CREATE', path: '/home/kernel/w/sub/deep.txt' });

    await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/home/kernel/w/a.txt', dest_path: '/home/kernel/w/b.txt' } });
    await events.waitFor({ type: 'RENAME', path: '/home/kernel/w/a.txt' });
    await events.waitFor({ type: 'CREATE', path: '/home/kernel/w/b.txt' });

    await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/home/kernel/w/b.txt' } });
    expect(await events.waitFor({ type: 'DELETE', path: '/home/kernel/w/b.txt' })).toMatchObject({ is_dir: false });
    await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/home/kernel/w/sub' } });
    expect(await events.waitFor({ type: 'DELETE', path: '/home/kernel/w/sub' })).toMatchObject({ is_dir: true });
    await events.waitFor({ type: 'DELETE', path: '/home/kernel/w/sub/deep.txt' });
    expect(events.events.filter((e) => e.type === 'DELETE' && e.path === '/home/kernel/w/a.txt')).toEqual([]);

    // Stopping the watch ends the open stream.
    expect((await svc.call('DELETE', `${fsBase}/watch/${watchId}`)).status).toBe(204);
    await events.ended;
  });

  it('sees changes made on disk by anyone, and keeps events that happen before the stream opens', async () => {
    await mkdir(host('/tmp/w2'), { recursive: true });
    const watchId = await startWatch('/tmp/w2', false);
    await writeFile(host('/tmp/w2/early.txt'), 'early');
    await new Promise((r) => setTimeout(r, 200));
    const events = await openEvents(watchId);
    await events.waitFor({ type: 'CREATE', path: '/tmp/w2/early.txt' });
    await rename(host('/tmp/w2/early.txt'), host('/tmp/w2/late.txt'));
    await events.waitFor({ type: 'RENAME', path: '/tmp/w2/early.txt' });
    await events.waitFor({ type: 'CREATE', path: '/tmp/w2/late.txt' });
    await rm(host('/tmp/w2/late.txt'));
    await events.waitFor({ type: 'DELETE', path: '/tmp/w2/late.txt' });
    await svc.call('DELETE', `${fsBase}/watch/${watchId}`);
    await events.ended;
  });

  it('does not report nested changes of a non-recursive watch', async () => {
    await mkdir(host('/tmp/w3/nested'), { recursive: true });
    const watchId = await startWatch('/tmp/w3', false);
    const events = await openEvents(watchId);
    await writeFile(host('/tmp/w3/nested/hidden.txt'), 'x');
    await writeFile(host('/tmp/w3/top.txt'), 'x');
    await events.waitFor({ type: 'CREATE', path: '/tmp/w3/top.txt' });
    expect(events.events.some((e) => e.path.includes('hidden'))).toBe(false);
    await svc.call('DELETE', `${fsBase}/watch/${watchId}`);
  });

  it('stops every watch, and ends its streams, when the browser session ends', async () => {
    const created = await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } });
    const other = created.body.session_id;
    const start = await svc.call('POST', `/browsers/${other}/fs/watch`, { body: { path: '/tmp' } });
    const res = await api(`/browsers/${other}/fs/watch/${start.body.watch_id}/events`);
    const events = new EventReader(res);
    expect((await svc.call('DELETE', `/browsers/${other}`)).status).toBe(204);
    await events.ended;
    // A watch belongs to its session: another browser cannot see it.
    expect((await svc.call('GET', `${fsBase}/watch/${start.body.watch_id}/events`)).status).toBe(404);
  });
});

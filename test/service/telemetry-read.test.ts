// Reading telemetry: the live stream (resume with Last-Event-ID, replay=all, end with the session), the
// archive's filters, windows, order and paging, bad input, and the hosted SDK's calls unchanged.
import Kernel, { BadRequestError, NotFoundError } from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { SseReader } from '../helpers/sse.js';

let svc: TestService;
let kernel: Kernel;
beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

type Envelope = { seq: number; event: { type: string; category: string; ts: number; data?: any } };

const auth = () => ({ authorization: `Bearer ${svc.apiKey}` });
const stream = (id: string, query = '', headers: Record<string, string> = {}) =>
  SseReader.open<Envelope>(`${svc.baseUrl}/browsers/${id}/telemetry/stream${query}`, { ...auth(), ...headers });

/** A session with the default (operational) set: each GET on it is one control event. */
async function session(): Promise<string> {
  return (await svc.call('POST', '/browsers', { body: { telemetry: { enabled: true } } })).body.session_id;
}
const poke = (id: string, n: number) => Promise.all(Array.from({ length: n }, () => svc.call('GET', `/browsers/${id}`)));

describe('telemetry stream', () => {
  it('sends new events with id lines, resumes after Last-Event-ID, replays the ring, and ends with the session', async () => {
    const id = await session();
    const live = (await stream(id)).reader!;
    await poke(id, 3);
    await live.waitFor((e) => e.seq === 3);
    expect(live.frames.map((f) => [f.id, f.data.seq])).toEqual([['1', 1], ['2', 2], ['3', 3]]);
    expect(live.frames[0]!.data.event).toMatchObject({ type: 'api_call', category: 'control' });
    live.close();

    await poke(id, 2);
    // A reconnect after seq 2 gets 3, 4, 5 and then live events; Last-Event-ID wins over replay=all.
    const resumed = (await stream(id, '?replay=all', { 'last-event-id': '2' })).reader!;
    await resumed.waitFor((e) => e.seq === 5);
    expect(resumed.frames.map((f) => f.data.seq)).toEqual([3, 4, 5]);
    const fresh = (await stream(id)).reader!;
    const all = (await stream(id, '?replay=all')).reader!;
    await all.waitFor((e) => e.seq === 5);
    expect(all.frames.map((f) => f.data.seq)).toEqual([1, 2, 3, 4, 5]);
    await poke(id, 1);
    await resumed.waitFor((e) => e.seq === 6);
    await fresh.waitFor((e) => e.seq === 6);
    expect(fresh.frames.map((f) => f.data.seq)).toEqual([6]);

    await svc.call('DELETE', `/browsers/${id}`);
    await Promise.all([resumed.ended, fresh.ended, all.ended]);
    expect(resumed.isDone && fresh.isDone && all.isDone).toBe(true);
    // Ended: no stream, but the archive stays.
    expect((await stream(id)).res.status).toBe(404);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events`)).body.length).toBeGreaterThanOrEqual(6);
  });

  it('resumes from the archive when the ring (1024) no longer holds the gap', async () => {
    const b = (await svc.call('POST', '/browsers', { body: { telemetry: { browser: { console: { enabled: true }, connection: { enabled: false } } } } })).body;
    const browser = await chromium.connectOverCDP(b.cdp_ws_url);
    await browser.contexts()[0]!.pages()[0]!.evaluate(() => {
      for (let i = 1; i <= 1500; i++) console.log(`line ${i}`);
    });
    await browser.close();
    await eventually(async () => {
      const last = (await svc.call('GET', `/browsers/${b.session_id}/telemetry/events?order=desc&limit=1`)).body[0];
      return last?.event.data.text === 'line 1500' ? true : undefined;
    });
    const resumed = (await stream(b.session_id, '', { 'last-event-id': '10' })).reader!;
    await resumed.waitFor((e) => e.event.data?.text === 'line 1500');
    const seqs = resumed.frames.map((f) => f.data.seq);
    expect(seqs[0]).toBe(11);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 11));
    // replay=all starts at the oldest event the ring still holds.
    const all = (await stream(b.session_id, '?replay=all')).reader!;
    await all.waitFor((e) => e.event.data?.text === 'line 1500');
    expect(all.frames).toHaveLength(1024);
    resumed.close();
    all.close();
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('opens silently without telemetry, and refuses unknown sessions and bad Last-Event-ID', async () => {
    const id = (await svc.call('POST', '/browsers')).body.session_id;
    const quiet = (await stream(id, '?replay=all')).reader!;
    await poke(id, 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(quiet.frames).toEqual([]);
    quiet.close();
    const missing = await stream('no-such-session');
    expect(missing.res.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const bad = await stream(id, '', { 'last-event-id': 'abc' });
    expect(bad.res.status).toBe(400);
    expect(bad.body.details[0].field).toBe('header.last-event-id');
    await svc.call('DELETE', `/browsers/${id}`);
  });
});

describe('telemetry events', () => {
  it('filters by category, windows by since/until, reads desc, and pages with X-Has-More/X-Next-Offset', async () => {
    const id = await session();
    await poke(id, 5);
    const connected = await fetch(`${svc.baseUrl}/browsers/${id}/telemetry/events`, { headers: auth() });
    expect(connected.headers.get('x-has-more')).toBe('false');
    expect(connected.headers.get('x-next-offset')).toBe('0');
    const all = (await connected.json()) as Envelope[];
    expect(all.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);

    const page1 = await svc.call('GET', `/browsers/${id}/telemetry/events?limit=2`);
    expect(page1.body.map((e: Envelope) => e.seq)).toEqual([1, 2]);
    expect(page1.headers.get('x-has-more')).toBe('true');
    const next = page1.headers.get('x-next-offset');
    const page2 = await svc.call('GET', `/browsers/${id}/telemetry/events?limit=2&offset=${next}`);
    expect(page2.body.map((e: Envelope) => e.seq)).toEqual([3, 4]);
    const desc = await svc.call('GET', `/browsers/${id}/telemetry/events?order=desc&limit=2`);
    expect(desc.body.map((e: Envelope) => e.seq)).toEqual([5, 4]);
    const desc2 = await svc.call('GET', `/browsers/${id}/telemetry/events?order=desc&limit=2&offset=${desc.headers.get('x-next-offset')}`);
    expect(desc2.body.map((e: Envelope) => e.seq)).toEqual([3, 2]);

    const third = all[2]!.event.ts;
    const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
    const window = await svc.call('GET', `/browsers/${id}/telemetry/events?since=${iso(third)}&until=${iso(all[4]!.event.ts)}`);
    expect(window.body.map((e: Envelope) => e.seq)).toEqual([3, 4]);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?since=1h`)).body).toHaveLength(5);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?until=1h`)).body).toEqual([]);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?category=console`)).body).toEqual([]);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?category=console,control`)).body).toHaveLength(5);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?category=console&category=control`)).body).toHaveLength(5);
    await svc.call('DELETE', `/browsers/${id}`);
    expect((await svc.call('GET', `/browsers/${id}/telemetry/events?category=control`)).body.length).toBeGreaterThanOrEqual(5);
  });

  it('answers bad input with 400s naming the field, and unknown sessions with 404', async () => {
    const id = await session();
    const field = async (query: string) => {
      const res = await svc.call('GET', `/browsers/${id}/telemetry/events?${query}`);
      expect(res.status).toBe(400);
      return res.body.details[0].field;
    };
    expect(await field('order=desc&since=5m')).toBe('querystring.since');
    expect(await field('category=bogus')).toBe('querystring.category');
    expect(await field('since=yesterday')).toBe('querystring.since');
    expect(await field('until=2025-13-45')).toBe('querystring.until');
    expect(await field('order=sideways')).toBe('querystring.order');
    expect(await field('limit=0')).toBe('querystring.limit');
    expect((await svc.call('GET', '/browsers/nope/telemetry/events')).status).toBe(404);
    const create = await svc.call('POST', '/browsers', { body: { telemetry: { enabled: false, browser: { console: { enabled: true } } } } });
    expect(create.status).toBe(400);
    expect(create.body.details[0].field).toBe('body.telemetry.enabled');
    const unknownCat = await svc.call('POST', '/browsers', { body: { telemetry: { browser: { gossip: { enabled: true } } } } });
    expect(unknownCat.body.details[0].field).toBe('body.telemetry.browser.gossip');
    const patchExport = await svc.call('PATCH', `/browsers/${id}`, { body: { telemetry: { export: { otlp: { destination: 'x' } } } } });
    expect(patchExport.body.details[0].field).toBe('body.telemetry.export');
    await svc.call('DELETE', `/browsers/${id}`);
  });
});

describe('the hosted SDK', () => {
  it('reads events and streams them with browsers.telemetry.events and .stream, unchanged', async () => {
    const created = await kernel.browsers.create({ headless: true, telemetry: { enabled: true } });
    expect(created.telemetry?.browser?.control?.enabled).toBe(true);
    const id = created.session_id;
    const live = await kernel.browsers.telemetry.stream(id, { replay: 'all' });
    await kernel.browsers.retrieve(id);
    await kernel.browsers.retrieve(id);
    const seen: number[] = [];
    for await (const env of live) {
      expect(env.event.type).toBe('api_call');
      seen.push(env.seq);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    const resumed = await kernel.browsers.telemetry.stream(id, { 'Last-Event-ID': '1' });
    for await (const env of resumed) {
      expect(env.seq).toBe(2);
      break;
    }
    const listed: number[] = [];
    for await (const env of kernel.browsers.telemetry.events(id, { limit: 1, category: ['control'] })) listed.push(env.seq);
    expect(listed).toEqual([1, 2]);
    await expect(kernel.browsers.telemetry.events(id, { order: 'desc', since: '5m' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(kernel.browsers.telemetry.stream('no-such-session')).rejects.toBeInstanceOf(NotFoundError);
    await kernel.browsers.deleteByID(id);
    const after = await eventually(async () => {
      const page = await kernel.browsers.telemetry.events(id);
      return page.getPaginatedItems().some((e) => e.event.type === 'api_call' && (e.event.data as any)?.operation_id.startsWith('DELETE')) ? page : undefined;
    });
    expect(after.getPaginatedItems().length).toBeGreaterThanOrEqual(3);
  });
});

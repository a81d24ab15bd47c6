import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const create = async (body: object = {}) => {
  const res = await svc.call('POST', '/browsers', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('browsers', () => {
  it('creates a session with the wire shape and reads it back by id and by name', async () => {
    const b = await create({ name: 'Shape', tags: { team: 'qa' }, viewport: { width: 1280, height: 800 }, stealth: true, timeout_seconds: 120 });
    expect(b).toMatchObject({
      session_id: expect.stringMatching(/^[a-z0-9]{24}$/),
      headless: true,
      stealth: true,
      timeout_seconds: 120,
      kiosk_mode: false,
      name: 'Shape',
      tags: { team: 'qa' },
      viewport: { width: 1280, height: 800 },
    });
    expect(b.cdp_ws_url).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/browsers/${b.session_id}/cdp\\?jwt=[\\w-]{43}$`));
    expect(Date.parse(b.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await svc.call('GET', `/browsers/${b.session_id}`)).body.session_id).toBe(b.session_id);
    expect((await svc.call('GET', '/browsers/Shape')).body.session_id).toBe(b.session_id);
    await svc.call('DELETE', '/browsers/Shape');
  });

  it('accepts a POST with no body at all', async () => {
    const res = await svc.call('POST', '/browsers');
    expect(res.status).toBe(200);
    expect(res.body.timeout_seconds).toBe(60);
    expect((await svc.call('DELETE', `/browsers/${res.body.session_id}`)).status).toBe(204);
  });

  it('refuses a name already active in the project with 409, and frees it on delete', async () => {
    const first = await create({ name: 'unique-name' });
    const clash = await svc.call('POST', '/browsers', { body: { name: 'unique-name' } });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('conflict');
    expect((await svc.call('DELETE', `/browsers/${first.session_id}`)).status).toBe(204);
    const again = await create({ name: 'unique-name' });
    expect(again.session_id).not.toBe(first.session_id);
    await svc.call('DELETE', `/browsers/${again.session_id}`);
  });

  it('updates name and tags; a clashing rename is 409; "" clears the name', async () => {
    const a = await create({ name: 'patch-a', tags: { x: '1' } });
    const b = await create({ name: 'patch-b' });
    const renamed = await svc.call('PATCH', '/browsers/patch-a', { body: { name: 'patch-c', tags: { y: '2' } } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'patch-c', tags: { y: '2' } });
    expect((await svc.call('PATCH', '/browsers/patch-c', { body: { name: 'patch-b' } })).status).toBe(409);
    const cleared = await svc.call('PATCH', `/browsers/${a.session_id}`, { body: { name: '', tags: {} } });
    expect(cleared.body.name).toBeUndefined();
    expect(cleared.body.tags).toEqual({});
    await svc.call('DELETE', `/browsers/${a.session_id}`);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  });

  it('keeps deleted sessions readable under status=deleted with deleted_at and the reason', async () => {
    const b = await create({ name: 'to-delete' });
    expect((await svc.call('DELETE', '/browsers/to-delete')).status).toBe(204);
    expect((await svc.call('GET', `/browsers/${b.session_id}`)).status).toBe(404);
    const got = await svc.call('GET', `/browsers/${b.session_id}?include_deleted=true`);
    expect(got.body).toMatchObject({ session_id: b.session_id, end_reason: 'deleted' });
    expect(Date.parse(got.body.deleted_at)).toBeGreaterThan(0);
    const deleted = (await svc.call('GET', '/browsers?status=deleted&limit=100')).body;
    expect(deleted.map((s: { session_id: string }) => s.session_id)).toContain(b.session_id);
    const active = (await svc.call('GET', '/browsers?limit=100')).body;
    expect(active.map((s: { session_id: string }) => s.session_id)).not.toContain(b.session_id);
    expect((await svc.call('DELETE', `/browsers/${b.session_id}`)).status).toBe(404);
  });

  it('pages with X-Has-More and X-Next-Offset, and filters by query and tags', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await create({ name: `Page-Item-${i}`, tags: { suite: 'paging', parity: i % 2 ? 'odd' : 'even' } }));
    const seen: string[] = [];
    const offsets: string[] = [];
    let offset = 0;
    for (;;) {
      const res = await svc.call('GET', `/browsers?limit=2&offset=${offset}&tags[suite]=paging`);
      expect(res.status).toBe(200);
      seen.push(...res.body.map((s: { session_id: string }) => s.session_id));
      offsets.push(`${res.headers.get('x-has-more')}:${res.headers.get('x-next-offset')}`);
      if (res.headers.get('x-has-more') !== 'true') break;
      offset = Number(res.headers.get('x-next-offset'));
    }
    expect(offsets).toEqual(['true:2', 'true:4', 'false:0']);
    expect(seen).toEqual(made.map((b) => b.session_id));

    const odd = (await svc.call('GET', '/browsers?tags[suite]=paging&tags[parity]=odd')).body;
    expect(odd.map((s: { name: string }) => s.name)).toEqual(['Page-Item-1', 'Page-Item-3']);
    const byQuery = (await svc.call('GET', '/browsers?query=page-item-4')).body;
    expect(byQuery.map((s: { name: string }) => s.name)).toEqual(['Page-Item-4']);
    const byId = (await svc.call('GET', `/browsers?query=${made[2].session_id.toUpperCase()}`)).body;
    expect(byId.map((s: { name: string }) => s.name)).toEqual(['Page-Item-2']);
    const literal = (await svc.call('GET', '/browsers?query=%25')).body;
    expect(literal).toEqual([]);
    for (const b of made) await svc.call('DELETE', `/browsers/${b.session_id}`);
  });
});

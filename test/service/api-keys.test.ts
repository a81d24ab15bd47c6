// /org/api_keys through the hosted SDK and raw HTTP: the plaintext once, masked afterwards, soft deletes,
// rotation with a grace period, expiry by the service's (injected) clock.
import Kernel, { AuthenticationError, BadRequestError, NotFoundError } from '@onkernel/sdk';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { storedBytes } from '../helpers/store-access.js';

const DAY = 24 * 3600 * 1000;
let clock = Date.parse('2026-03-01T10:00:00.000Z');
let svc: TestService;
let admin: Kernel;
const sdk = (apiKey: string, projectID?: string, baseURL = svc.baseUrl) => new Kernel({ apiKey, baseURL, maxRetries: 0, projectID });
const as = (key: string) => ({ authorization: `Bearer ${key}` });

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(clock), standby: 0, keyRotationGraceDays: 3 });
  admin = sdk(svc.apiKey);
});
afterAll(async () => {
  await svc.close();
});

describe('API keys', () => {
  it('creates a key, shows its plaintext once and only masked afterwards', async () => {
    const created = await admin.apiKeys.create({ name: 'ci', days_to_expire: 30 });
    expect(created.key).toMatch(/^bcs_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({
      name: 'ci',
      masked_key: `${created.key.slice(0, 8)}…${created.key.slice(-4)}`,
      created_at: new Date(clock).toISOString(),
      expires_at: new Date(clock + 30 * DAY).toISOString(),
      deleted_at: null,
      project_id: null,
      project_name: null,
    });
    const me = (await svc.call('GET', '/auth/context')).body.principal.id;
    expect(created.created_by).toEqual({ id: me, email: '', name: 'admin' });

    const got = await admin.apiKeys.retrieve(created.id);
    expect(got).not.toHaveProperty('key');
    expect(got.masked_key).toBe(created.masked_key);
    expect(JSON.stringify(await svc.call('GET', '/org/api_keys?status=all'))).not.toContain(created.key);

    // The new key works at once.
    expect((await sdk(created.key).apiKeys.retrieve(created.id)).name).toBe('ci');
  });

  it('validates create and update bodies, naming the field', async () => {
    for (const [body, field] of [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: 'x'.repeat(256) }, 'body.name'],
      [{ name: 'a', days_to_expire: 0 }, 'body.days_to_expire'],
      [{ name: 'a', days_to_expire: 3651 }, 'body.days_to_expire'],
      [{ name: 'a', scope: 'all' }, 'body.scope'],
    ] as const) {
      const res = await svc.call('POST', '/org/api_keys', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const key = await admin.apiKeys.create({ name: 'to-rename' });
    expect(key.expires_at).toBeNull();
    await expect(admin.apiKeys.update(key.id, { name: '' })).rejects.toBeInstanceOf(BadRequestError);
    expect((await admin.apiKeys.update(key.id, { name: 'renamed' })).name).toBe('renamed');
    expect((await svc.call('POST', '/org/api_keys', { body: { name: 'p', project_id: 'nope' } })).body).toEqual({
      code: 'not_found',
      message: "project 'nope' not found",
    });
  });

  it('soft-deletes: the key stops working, is hidden from lists and retrieves unless asked', async () => {
    const doomed = await admin.apiKeys.create({ name: 'doomed' });
    await admin.apiKeys.delete(doomed.id);
    await expect(sdk(doomed.key).apiKeys.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(admin.apiKeys.retrieve(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
    const kept = await admin.apiKeys.retrieve(doomed.id, { include_deleted: true });
    expect(kept.deleted_at).toBe(new Date(clock).toISOString());
    const active: string[] = [];
    for await (const k of admin.apiKeys.list({ limit: 2 })) active.push(k.id);
    expect(active).not.toContain(doomed.id);
    for (const status of ['deleted', 'all'] as const) {
      const ids: string[] = [];
      for await (const k of admin.apiKeys.list({ status })) ids.push(k.id);
      expect(ids, status).toContain(doomed.id);
    }
    const viaDeprecated = await svc.call('GET', '/org/api_keys?include_deleted=true&limit=100');
    expect(viaDeprecated.body.map((k: { id: string }) => k.id)).toContain(doomed.id);
    // Gone is gone: no rename, rotate or second delete.
    await expect(admin.apiKeys.update(doomed.id, { name: 'x' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(admin.apiKeys.rotate(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(admin.apiKeys.delete(doomed.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses to let a key delete itself', async () => {
    const self = (await svc.call('GET', '/auth/context')).body.principal.id;
    const res = await svc.call('DELETE', `/org/api_keys/${self}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('cannot_delete_current_key');
    await expect(admin.apiKeys.delete(self)).rejects.toBeInstanceOf(BadRequestError);
    expect((await svc.call('GET', '/org/limits')).status).toBe(200);
  });

  it('rotates: same name and scope, the old key works through the grace period, then not', async () => {
    const old = await admin.apiKeys.create({ name: 'rotating', days_to_expire: 10 });
    const fresh = await sdk(old.key).apiKeys.rotate(old.id);
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.key).not.toBe(old.key);
    expect(fresh).toMatchObject({ name: 'rotating', project_id: null, expires_at: new Date(clock + 10 * DAY).toISOString() });
    expect((await admin.apiKeys.retrieve(old.id)).expires_at).toBe(new Date(clock + 3 * DAY).toISOString());

    const start = clock;
    try {
      clock = start + 3 * DAY - 1000;
      expect((await svc.call('GET', '/org/limits', { headers: as(old.key) })).status).toBe(200);
      clock = start + 3 * DAY;
      const expired = await svc.call('GET', '/org/limits', { headers: as(old.key) });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ code: 'unauthorized', message: 'invalid, expired or deleted API key' });
      expect((await svc.call('GET', '/org/limits', { headers: as(fresh.key) })).status).toBe(200);
      // Expired keys are still listed (status=active means "not deleted").
      const listed = await svc.call('GET', '/org/api_keys?limit=100');
      expect(listed.body.map((k: { id: string }) => k.id)).toContain(old.id);
    } finally {
      clock = start;
    }
  });

  it('takes the grace period and the new lifetime from the rotate request', async () => {
    const old = await admin.apiKeys.create({ name: 'now-or-never' });
    const fresh = await admin.apiKeys.rotate(old.id, { expire_in_days: 0, days_to_expire: 2 });
    expect(fresh.expires_at).toBe(new Date(clock + 2 * DAY).toISOString());
    expect((await svc.call('GET', '/org/limits', { headers: as(old.key) })).status).toBe(401);
    // A key that never expired gets a replacement that never expires, unless told otherwise.
    const forever = await admin.apiKeys.create({ name: 'forever' });
    expect((await admin.apiKeys.rotate(forever.id, { expire_in_days: 30 })).expires_at).toBeNull();
    // The grace period never extends a key's life.
    const short = await admin.apiKeys.create({ name: 'short', days_to_expire: 1 });
    await admin.apiKeys.rotate(short.id, { expire_in_days: 30 });
    expect((await admin.apiKeys.retrieve(short.id)).expires_at).toBe(new Date(clock + DAY).toISOString());
    const bad = await svc.call('POST', `/org/api_keys/${short.id}/rotate`, { body: { expire_in_days: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('body.expire_in_days');
  });

  it('expires keys by days_to_expire on the service clock', async () => {
    const key = await admin.apiKeys.create({ name: 'one-day', days_to_expire: 1 });
    const start = clock;
    try {
      clock = start + DAY;
      await expect(sdk(key.key).apiKeys.list()).rejects.toBeInstanceOf(AuthenticationError);
    } finally {
      clock = start;
    }
    expect((await sdk(key.key).apiKeys.list()).getPaginatedItems().length).toBeGreaterThan(0);
  });

  it('lists with filters, search and sorting', async () => {
    const a = await admin.apiKeys.create({ name: 'Sorter-B', days_to_expire: 5 });
    const b = await admin.apiKeys.create({ name: 'sorter-a', days_to_expire: 9 });
    const names = async (query: string) =>
      ((await svc.call('GET', `/org/api_keys?${query}`)).body as { name: string }[]).map((k) => k.name);
    expect(await names('name=SORTER-A')).toEqual(['sorter-a']);
    expect(await names('query=orter&sort_by=name')).toEqual(['sorter-a', 'Sorter-B']);
    expect(await names('query=orter&sort_by=expires_at&sort_direction=desc')).toEqual(['sorter-a', 'Sorter-B']);
    expect(await names(`query=${a.id.slice(0, 10)}`)).toEqual(['Sorter-B']);
    expect(await names(`query=${encodeURIComponent(b.masked_key.slice(0, 9))}`)).toEqual(['sorter-a']);
    const page = await svc.call('GET', '/org/api_keys?limit=1');
    expect(page.headers.get('x-has-more')).toBe('true');
    expect(page.headers.get('x-next-offset')).toBe('1');
    expect((await svc.call('GET', '/org/api_keys?sort_by=id')).status).toBe(400);
  });

  it('keeps only hashes in the database (keys table and audit log alike)', async () => {
    const created = await admin.apiKeys.create({ name: 'secret-check' });
    const rotated = await admin.apiKeys.rotate(created.id);
    const stored = await storedBytes(svc);
    for (const key of [svc.apiKey, created.key, rotated.key]) expect(stored.includes(key)).toBe(false);
  });
});

describe('the bootstrap key', () => {
  it('refuses to start again with a configured key that was deleted through the API', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-keys-'));
    const apiKey = 'bcs_bootstrap-key-for-this-test';
    try {
      const first = await startTestService({ dataDir, apiKey, standby: 0 });
      const spare = await sdk(first.apiKey, undefined, first.baseUrl).apiKeys.create({ name: 'spare' });
      const adminId = (await first.call('GET', '/auth/context')).body.principal.id;
      await sdk(spare.key, undefined, first.baseUrl).apiKeys.delete(adminId);
      await first.close();
      await expect(startTestService({ dataDir, apiKey, standby: 0 })).rejects.toThrow(/was deleted; give another key/);
      const second = await startTestService({ dataDir, apiKey: spare.key, standby: 0 });
      expect((await second.call('GET', '/org/limits')).status).toBe(200);
      await second.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  });
});

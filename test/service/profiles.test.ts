// Profiles through the hosted SDK, unchanged: CRUD, download, and browser state (a cookie, localStorage)
// carried from one real Chromium session to the next, saved on DELETE, on timeout and on service
// shutdown; one read-write holder at a time.
import Kernel, { BadRequestError, ConflictError, NotFoundError } from '@onkernel/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Transform } from 'node:stream';
import { createZstdDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { extract } from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, expectListedAsAlone, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>site</title><p>site</p>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await svc.close();
  site.close();
});

/** Sets a persistent cookie (session cookies are never written to disk) and a localStorage item. */
async function writeState(cdpUrl: string, value: string): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  const context = browser.contexts()[0]!;
  await context.addCookies([{ name: 'login', value, url: origin, expires: Math.floor(Date.now() / 1000) + 3600 }]);
  const page = context.pages()[0]!;
  await page.goto(origin);
  await page.evaluate((v) => localStorage.setItem('login', v), value);
  await browser.close();
}

async function readState(cdpUrl: string): Promise<{ cookie?: string; stored: string | null }> {
  const browser: Browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = browser.contexts()[0]!;
    const cookie = (await context.cookies(origin)).find((c) => c.name === 'login')?.value;
    const page = context.pages()[0]!;
    await page.goto(origin);
    return { cookie, stored: await page.evaluate(() => localStorage.getItem('login')) };
  } finally {
    await browser.close();
  }
}

async function tarNames(res: Response, decompress?: Transform): Promise<string[]> {
  const names: string[] = [];
  const tar = extract();
  const done = new Promise<void>((resolve, reject) => {
    tar.on('entry', (header, stream, next) => {
      names.push(header.name);
      stream.on('end', next);
      stream.resume();
    });
    tar.on('finish', resolve);
    tar.on('error', reject);
  });
  const body = Readable.fromWeb(res.body as never);
  (decompress ? body.pipe(decompress) : body).pipe(tar as unknown as NodeJS.WritableStream);
  await done;
  return names;
}

describe('profiles', () => {
  it('create, retrieve, rename, list with paging and filters, download and delete through the SDK', async () => {
    const created = await kernel.profiles.create({ name: 'crud-one' });
    expect(created).toMatchObject({ id: expect.stringMatching(/^[a-z0-9]{24}$/), name: 'crud-one' });
    expect(created.updated_at).toBe(created.created_at);
    expect(created.last_used_at).toBeUndefined();
    const unnamed = await kernel.profiles.create({});
    expect(unnamed.name).toBeNull();
    await expect(kernel.profiles.create({ name: 'crud-one' })).rejects.toBeInstanceOf(ConflictError);
    await expect(kernel.profiles.create({ name: 'has space' })).rejects.toBeInstanceOf(BadRequestError);

    expect((await kernel.profiles.retrieve('crud-one')).id).toBe(created.id);
    expect((await kernel.profiles.retrieve(created.id)).name).toBe('crud-one');
    const renamed = await kernel.profiles.update('crud-one', { name: 'crud-renamed' });
    expect(renamed.name).toBe('crud-renamed');
    await expect(kernel.profiles.retrieve('crud-one')).rejects.toBeInstanceOf(NotFoundError);
    await expect(kernel.profiles.update(unnamed.id, { name: 'crud-renamed' })).rejects.toBeInstanceOf(ConflictError);

    const ids: string[] = [];
    for await (const p of kernel.profiles.list({ limit: 1 })) ids.push(p.id);
    expect(ids).toEqual(expect.arrayContaining([created.id, unnamed.id]));
    const page = await svc.call('GET', '/profiles?limit=1');
    expect(page.headers.get('x-has-more')).toBe('true');
    expect(page.headers.get('x-next-offset')).toBe('1');
    expect((await svc.call('GET', '/profiles?name=CRUD-RENAMED')).body.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect((await svc.call('GET', '/profiles?query=renam')).body.map((p: { id: string }) => p.id)).toEqual([created.id]);
    expect((await svc.call('GET', `/profiles?query=${unnamed.id.slice(4, 12)}`)).body.map((p: { id: string }) => p.id)).toEqual([unnamed.id]);

    const download = await kernel.profiles.download(created.id);
    expect(download.headers.get('content-type')).toBe('application/x-tar');
    expect(await tarNames(download)).toEqual([]);
    const zst = await kernel.profiles.download(created.id, { format: 'tar.zst' });
    expect([zst.headers.get('content-type'), zst.headers.get('content-disposition')]).toEqual(['application/zstd', 'attachment; filename="crud-renamed.tar.zst"']);
    expect(await tarNames(zst, createZstdDecompress())).toEqual([]);

    const bad = await svc.call('PATCH', `/profiles/${created.id}`, { body: { name: '../x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ code: 'invalid_input', field: 'body.name' });
    const unknown = await svc.call('POST', '/profiles', { body: { name: 'x', save_changes: true } });
    expect(unknown.body.details[0].field).toBe('body.save_changes');

    await kernel.profiles.delete('crud-renamed');
    await kernel.profiles.delete(unnamed.id);
    await expect(kernel.profiles.retrieve(created.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await svc.call('DELETE', `/profiles/${created.id}`)).status).toBe(404);
  });

  it('carries cookies and localStorage into the next session; one read-write holder at a time', async () => {
    const profile = await kernel.profiles.create({ name: 'carry' });
    const writer = await kernel.browsers.create({ profile: { name: 'carry', save_changes: true } });
    expect(writer.profile).toMatchObject({ id: profile.id, name: 'carry' });
    expect((writer as { profile_save_changes?: boolean }).profile_save_changes).toBe(true);

    // A second read-write holder is refused; a read-only one is fine meanwhile.
    await expect(kernel.browsers.create({ profile: { id: profile.id, save_changes: true } })).rejects.toBeInstanceOf(ConflictError);
    const reader = await kernel.browsers.create({ profile: { id: profile.id } });
    expect((reader as { profile_save_changes?: boolean }).profile_save_changes).toBe(false);
    const listed = (await svc.call('GET', '/browsers?query=CARRY')).body.map((s: { session_id: string }) => s.session_id);
    expect(listed.sort()).toEqual([writer.session_id, reader.session_id].sort());
    expect((await svc.call('GET', `/browsers?query=${profile.id}`)).body).toHaveLength(2);
    await expectListedAsAlone(svc, [writer.session_id, reader.session_id]);

    await writeState(writer.cdp_ws_url, 'v1');
    let started = Date.now();
    await kernel.browsers.deleteByID(writer.session_id);
    const deleteWithSave = Date.now() - started;
    await kernel.browsers.deleteByID(reader.session_id);

    const saved = await kernel.profiles.retrieve(profile.id);
    expect(Date.parse(saved.updated_at!)).toBeGreaterThan(Date.parse(profile.updated_at!));
    expect(saved.last_used_at).toBeDefined();

    started = Date.now();
    const next = await kernel.browsers.create({ profile: { name: 'carry' } });
    const createWithLoad = Date.now() - started;
    expect(await readState(next.cdp_ws_url)).toEqual({ cookie: 'v1', stored: 'v1' });
    // Read-only: what this session changes is not written back.
    await writeState(next.cdp_ws_url, 'v2');
    await kernel.browsers.deleteByID(next.session_id);
    const again = await kernel.browsers.create({ profile: { name: 'carry', save_changes: true } });
    expect(await readState(again.cdp_ws_url)).toEqual({ cookie: 'v1', stored: 'v1' });
    await kernel.browsers.deleteByID(again.session_id);

    started = Date.now();
    const plain = await kernel.browsers.create({});
    const createPlain = Date.now() - started;
    started = Date.now();
    await kernel.browsers.deleteByID(plain.session_id);
    const deletePlain = Date.now() - started;
    console.log(
      `profile round trip: create+load ${createWithLoad} ms (plain create ${createPlain} ms), delete+save ${deleteWithSave} ms (plain delete ${deletePlain} ms)`,
    );

    // The download holds what matters and none of the caches.
    const names = await tarNames(await kernel.profiles.download('carry'));
    expect(names.some((n) => /^Default\/(Network\/)?Cookies$/.test(n))).toBe(true);
    expect(names.some((n) => n.startsWith('Default/Local Storage/'))).toBe(true);
    expect(names.filter((n) => /(^|\/)(Cache|Code Cache|GPUCache|ShaderCache|GrShaderCache|Sessions)\//.test(n))).toEqual([]);
    expect(names.filter((n) => n.startsWith('Singleton'))).toEqual([]);
  });

  it('saves when the session times out', async () => {
    await kernel.profiles.create({ name: 'timeout' });
    const writer = await kernel.browsers.create({ profile: { name: 'timeout', save_changes: true }, timeout_seconds: 10 });
    await writeState(writer.cdp_ws_url, 'late');
    await eventually(async () => {
      const res = await svc.call('GET', '/browsers?status=deleted');
      return res.body.find((s: { session_id: string; end_reason: string }) => s.session_id === writer.session_id && s.end_reason === 'timeout');
    }, 25_000, 250);
    const next = await kernel.browsers.create({ profile: { name: 'timeout' } });
    expect(await readState(next.cdp_ws_url)).toEqual({ cookie: 'late', stored: 'late' });
    await kernel.browsers.deleteByID(next.session_id);
  }, 40_000);

  it('refuses unknown profiles, bad selectors, and deleting a profile a pool uses', async () => {
    await expect(kernel.browsers.create({ profile: { name: 'nope' } })).rejects.toBeInstanceOf(NotFoundError);
    const both = await svc.call('POST', '/browsers', { body: { profile: { id: 'a', name: 'b' } } });
    expect(both.status).toBe(400);
    expect(both.body.details[0].field).toBe('body.profile');
    const asString = await svc.call('POST', '/browsers', { body: { profile: 'carry' } });
    expect([asString.status, asString.body.details[0].field]).toEqual([400, 'body.profile']);
    const profile = await kernel.profiles.create({ name: 'pooled-in-use' });
    await kernel.browserPools.create({ name: 'uses-profile', size: 1, profile: { id: profile.id } });
    const refused = await svc.call('DELETE', '/profiles/pooled-in-use');
    expect([refused.status, refused.body.code]).toEqual([400, 'resource_in_use']);
    expect(refused.body.message).toContain("browser pool 'uses-profile'");
    await kernel.browserPools.delete('uses-profile', { force: true });
    await kernel.profiles.delete('pooled-in-use');
  });
});

describe('profiles in projects', () => {
  it('are scoped to the project the request acts in', async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'profiles-team' } })).body;
    const scoped = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID: project.id });
    const orgWide = await kernel.profiles.create({ name: 'same-name' });
    const inProject = await scoped.profiles.create({ name: 'same-name' });
    expect(inProject.id).not.toBe(orgWide.id);
    expect((await scoped.profiles.retrieve('same-name')).id).toBe(inProject.id);
    await expect(scoped.profiles.retrieve(orgWide.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(kernel.profiles.retrieve(inProject.id)).rejects.toBeInstanceOf(NotFoundError);
    const listed: string[] = [];
    for await (const p of scoped.profiles.list()) listed.push(p.id);
    expect(listed).toEqual([inProject.id]);
    await expect(scoped.browsers.create({ profile: { id: orgWide.id } })).rejects.toBeInstanceOf(NotFoundError);
    await scoped.profiles.delete('same-name');
    await kernel.profiles.delete('same-name');
  });
});

describe('profiles across a service restart', () => {
  it('a clean shutdown saves the session; a hard stop is saved at the next start', async () => {
    // The data dir is the test's, so closing a service does not remove it.
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-profiles-'));
    const first = await startTestService({ standby: 0, dataDir });
    const k1 = new Kernel({ apiKey: first.apiKey, baseURL: first.baseUrl, maxRetries: 0 });
    await k1.profiles.create({ name: 'durable' });
    const w1 = await k1.browsers.create({ profile: { name: 'durable', save_changes: true } });
    await writeState(w1.cdp_ws_url, 'before-shutdown');
    await first.close();

    const second = await startTestService({ standby: 0, dataDir, apiKey: first.apiKey });
    const k2 = new Kernel({ apiKey: second.apiKey, baseURL: second.baseUrl, maxRetries: 0 });
    const w2 = await k2.browsers.create({ profile: { name: 'durable', save_changes: true } });
    expect(await readState(w2.cdp_ws_url)).toEqual({ cookie: 'before-shutdown', stored: 'before-shutdown' });
    await writeState(w2.cdp_ws_url, 'before-crash');
    // A third service on the same data dir plays the restart after a hard stop. The second plays dead: it
    // must not notice its browser ending (a dead service does not), or it would race the third to the save.
    second.sessions.get(w2.session_id)!.ending = Promise.resolve();
    const third = await startTestService({ standby: 0, dataDir, apiKey: first.apiKey });
    try {
      const k3 = new Kernel({ apiKey: third.apiKey, baseURL: third.baseUrl, maxRetries: 0 });
      expect((await k3.browsers.retrieve(w2.session_id, { include_deleted: true })).deleted_at).toBeDefined();
      const w3 = await k3.browsers.create({ profile: { name: 'durable' } });
      expect(await readState(w3.cdp_ws_url)).toEqual({ cookie: 'before-crash', stored: 'before-crash' });
    } finally {
      await third.close();
      await second.close();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  }, 60_000);
});

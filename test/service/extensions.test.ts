// Extensions through the hosted SDK, unchanged: upload (multipart), metadata, list, download of the exact
// bytes, delete; bad uploads refused with the field named; a real extension (a content script) loaded by
// real Chromium in a browser and in a pool browser, changing the page it runs on.
import Kernel, { BadRequestError, ConflictError, NotFoundError, toFile } from '@onkernel/sdk';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { zipOf } from '../helpers/app-zip.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const exe = await findChromium(process.env.BCS_CHROMIUM);
const fullChromium = !exe.headlessShell;
if (!fullChromium) console.log(`extension loading tests skipped: ${exe.path} is the headless shell, which cannot load extensions`);

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>original</title><p>page</p>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await svc.close();
  site.close();
});


/** A manifest-v3 extension whose content script retitles every page and marks it with an element. */
const titleChanger = (prefix = '') => ({
  [`${prefix}manifest.json`]: JSON.stringify({
    manifest_version: 3,
    name: 'title changer',
    version: '1.0',
    content_scripts: [{ matches: ['<all_urls>'], js: ['content.js'], run_at: 'document_end' }],
  }),
  [`${prefix}content.js`]: `document.title = 'changed by extension';
    const mark = document.createElement('div'); mark.id = 'extension-mark'; document.body.appendChild(mark);`,
});

/** Raw multipart POST, for exact statuses and bodies. */
async function upload(parts: Record<string, Buffer | string>): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([new Uint8Array(value)]), 'ext.zip');
  }
  const res = await fetch(`${svc.baseUrl}/extensions`, { method: 'POST', headers: { authorization: `Bearer ${svc.apiKey}` }, body: form });
  return { status: res.status, body: await res.json() };
}

/** Opens the site; `expectChange` waits for the content script (it runs at document_end, usually before load). */
async function pageChanged(cdpUrl: string, expectChange: boolean): Promise<{ title: string; marked: boolean }> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const page = browser.contexts()[0]!.pages()[0]!;
    await page.goto(origin);
    if (expectChange) await page.waitForSelector('#extension-mark', { state: 'attached', timeout: 10_000 }).catch(() => undefined);
    return { title: await page.title(), marked: (await page.$('#extension-mark')) !== null };
  } finally {
    await browser.close();
  }
}

describe('extensions', () => {
  it('upload, metadata, list, download and delete through the SDK', async () => {
    const zip = await zipOf(titleChanger());
    const uploaded = await kernel.extensions.upload({ file: await toFile(zip, 'ext.zip'), name: 'crud-ext' });
    expect(uploaded).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{24}$/),
      name: 'crud-ext',
      created_at: expect.any(String),
      size_bytes: zip.length,
      checksum: createHash('sha256').update(zip).digest('hex'),
      last_used_at: null,
    });
    const raw = await upload({ file: zip });
    expect(raw.status).toBe(201);
    expect(raw.body.name).toBeNull();
    await expect(kernel.extensions.upload({ file: await toFile(zip, 'ext.zip'), name: 'crud-ext' })).rejects.toBeInstanceOf(ConflictError);

    expect(await kernel.extensions.get('crud-ext')).toEqual(uploaded);
    expect((await kernel.extensions.get(uploaded.id)).name).toBe('crud-ext');
    const ids: string[] = [];
    for await (const e of kernel.extensions.list({ limit: 1 })) ids.push(e.id);
    expect(ids).toEqual([uploaded.id, raw.body.id]);
    expect((await svc.call('GET', '/extensions?name=CRUD-EXT')).body.map((e: { id: string }) => e.id)).toEqual([uploaded.id]);
    expect((await svc.call('GET', `/extensions?query=${raw.body.id}`)).body.map((e: { id: string }) => e.id)).toEqual([raw.body.id]);
    const page = await svc.call('GET', '/extensions?limit=1');
    expect([page.headers.get('x-has-more'), page.headers.get('x-next-offset')]).toEqual(['true', '1']);

    const download = await kernel.extensions.download('crud-ext');
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await download.arrayBuffer()).equals(zip)).toBe(true);

    await kernel.extensions.delete('crud-ext');
    await kernel.extensions.delete(raw.body.id);
    await expect(kernel.extensions.get(uploaded.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await svc.call('GET', `/extensions/${uploaded.id}`)).status).toBe(404);
    const store = await svc.call('GET', '/extensions/from_chrome_store?url=https://chromewebstore.google.com/detail/x');
    expect([store.status, store.body.code]).toEqual([400, 'chrome_store_unavailable']);
  });

  it('refuses bad uploads with a 400 naming the field', async () => {
    const good = await zipOf(titleChanger());
    const slip = await zipOf({ ...titleChanger(), 'aa/evil.txt': 'x' });
    // yazl refuses to write a climbing name, so one of equal length is patched in.
    const climbing = Buffer.from(slip.toString('latin1').replaceAll('aa/evil.txt', '../evil.txt'), 'latin1');
    const cases: Array<[Record<string, Buffer | string>, string, RegExp]> = [
      [{ file: Buffer.from('not a zip at all') }, 'body.file', /not a zip/],
      [{ file: await zipOf({ 'readme.txt': 'hi' }) }, 'body.file', /no manifest\.json/],
      [{ file: await zipOf({ 'a/manifest.json': '{}', 'b/x.js': '' }) }, 'body.file', /no manifest\.json/],
      [{ file: await zipOf({ 'manifest.json': '{"name": ' }) }, 'body.file', /not valid JSON/],
      [{ file: await zipOf({ 'manifest.json': '{"name": "x", "version": "1"}' }) }, 'body.file', /manifest_version/],
      [{ file: climbing }, 'body.file', /\.\./],
      [{ file: good, name: 'bad name!' }, 'body.name', /must match/],
      [{ file: good, other: 'x' }, 'body.other', /unknown field/],
      [{ name: 'no-file' }, 'body.file', /is required/],
    ];
    for (const [parts, field, message] of cases) {
      const res = await upload(parts);
      expect(res.status, field).toBe(400);
      expect(res.body.code).toBe('bad_request');
      expect(res.body.details[0]).toMatchObject({ code: 'invalid_input', field });
      expect(res.body.message).toMatch(message);
    }
    const json = await svc.call('POST', '/extensions', { body: { name: 'x' } });
    expect([json.status, json.body.details[0].field]).toEqual([400, 'body']);
    expect((await svc.call('GET', '/extensions')).body).toEqual([]);
    const anonymous = await fetch(`${svc.baseUrl}/extensions`, { method: 'POST', body: new FormData() });
    expect(anonymous.status).toBe(401);
  });

  it.skipIf(!fullChromium)('a browser loads the extension (zipped in a single top folder) and the page changes', async () => {
    const zip = await zipOf(titleChanger('title-changer/'));
    const ext = await kernel.extensions.upload({ file: await toFile(zip, 'title-changer.zip'), name: 'title-changer' });
    const plain = await kernel.browsers.create({});
    const withExt = await kernel.browsers.create({ extensions: [{ name: 'title-changer' }] });
    expect(await pageChanged(plain.cdp_ws_url, false)).toEqual({ title: 'original', marked: false });
    expect(await pageChanged(withExt.cdp_ws_url, true)).toEqual({ title: 'changed by extension', marked: true });
    expect((await kernel.extensions.get(ext.id)).last_used_at).toEqual(expect.any(String));
    // The session's view holds its own copy, where the hosted VM keeps extensions.
    const listing = await kernel.browsers.fs.listFiles(withExt.session_id, { path: `/home/kernel/extensions/${ext.id}` });
    expect(listing.map((f) => f.name).sort()).toEqual(['content.js', 'manifest.json']);
    await kernel.browsers.deleteByID(plain.session_id);
    await kernel.browsers.deleteByID(withExt.session_id);

    await expect(kernel.browsers.create({ extensions: [{ name: 'missing' }] })).rejects.toBeInstanceOf(NotFoundError);
    const both = await svc.call('POST', '/browsers', { body: { extensions: [{ id: ext.id, name: 'title-changer' }] } });
    expect([both.status, both.body.details[0].field]).toEqual([400, 'body.extensions.0']);
  });

  it.skipIf(!fullChromium)('pools load extensions, list them in extension_ids, and keep them from being deleted', async () => {
    const ext = await kernel.extensions.upload({ file: await toFile(await zipOf(titleChanger()), 'ext.zip'), name: 'pool-ext' });
    const pool = await kernel.browserPools.create({ name: 'ext-pool', size: 1, extensions: [{ id: ext.id }] });
    expect(pool.extension_ids).toEqual([ext.id]);
    expect(pool.browser_pool_config.extensions).toEqual([{ id: ext.id }]);
    await eventually(async () => ((await kernel.browserPools.retrieve('ext-pool')).available_count === 1 ? true : undefined), 30_000);
    const lease = await kernel.browserPools.acquire('ext-pool', {});
    expect(await pageChanged(lease.cdp_ws_url, true)).toEqual({ title: 'changed by extension', marked: true });
    await kernel.browserPools.release('ext-pool', { session_id: lease.session_id });

    await expect(kernel.extensions.delete('pool-ext')).rejects.toBeInstanceOf(BadRequestError);
    const cleared = await kernel.browserPools.update('ext-pool', { extensions: [], size: 1 });
    expect(cleared.extension_ids).toEqual([]);
    await kernel.extensions.delete('pool-ext');
    await kernel.browserPools.delete('ext-pool', { force: true });
  }, 60_000);
});

describe('extensions in projects', () => {
  it('are scoped to the project the request acts in', async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'extensions-team' } })).body;
    const scoped = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID: project.id });
    const zip = await zipOf(titleChanger());
    const orgWide = await kernel.extensions.upload({ file: await toFile(zip, 'ext.zip'), name: 'same-ext' });
    const inProject = await scoped.extensions.upload({ file: await toFile(zip, 'ext.zip'), name: 'same-ext' });
    expect((await scoped.extensions.get('same-ext')).id).toBe(inProject.id);
    await expect(scoped.extensions.get(orgWide.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(scoped.extensions.download(orgWide.id)).rejects.toBeInstanceOf(NotFoundError);
    // (The headless shell refuses any extension with a 400 before looking it up.)
    if (fullChromium) await expect(scoped.browsers.create({ extensions: [{ id: orgWide.id }] })).rejects.toBeInstanceOf(NotFoundError);
    await scoped.extensions.delete('same-ext');
    await kernel.extensions.delete('same-ext');
  });
});

describe('extensions with only the headless shell', () => {
  it('are refused with 400 extensions_unavailable', async () => {
    let shell: string;
    try {
      const { default: packaged } = await import('@sparticuz/chromium');
      shell = await packaged.executablePath();
    } catch (err) {
      console.log(`skipped: the packaged headless shell is not available (${(err as Error).message})`);
      return;
    }
    const only = await startTestService({ standby: 0, chromium: shell });
    try {
      const k = new Kernel({ apiKey: only.apiKey, baseURL: only.baseUrl, maxRetries: 0 });
      const ext = await k.extensions.upload({ file: await toFile(await zipOf(titleChanger()), 'ext.zip') });
      for (const [path, body] of [
        ['/browsers', { extensions: [{ id: ext.id }] }],
        ['/browser_pools', { size: 1, extensions: [{ id: ext.id }] }],
      ] as const) {
        const res = await only.call('POST', path, { body });
        expect([res.status, res.body.code]).toEqual([400, 'extensions_unavailable']);
        expect(res.body.message).toContain('headless shell');
      }
    } finally {
      await only.close();
    }
  });
});

// Nothing the fs API does may reach outside the session's folder: not through `..`, not through a
// symlink planted inside the view (at the leaf, as a parent, or dangling), not through /proc, and not
// through a crafted zip.
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import yauzl from 'yauzl';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let id: string;
let fsBase: string;
let root: string;
/** A directory outside the view holding a secret the API must never reveal or touch. */
let outside: string;
const SECRET = 'outside-the-view-secret';

beforeAll(async () => {
  svc = await startTestService();
  const created = await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } });
  id = created.body.session_id;
  fsBase = `/browsers/${id}/fs`;
  root = svc.sessions.get(id)!.view.root;
  // Not under /tmp: a link's absolute target is a path of the view (as for a sandboxed process), and the
  // view has its own /tmp, so a host folder there would be shadowed rather than outside.
  outside = await mkdtemp('/var/tmp/bcs-outside-');
  await writeFile(join(outside, 'secret.txt'), SECRET);
  // Planted as a session's own process could: links inside the view pointing out of it.
  await symlink(join(outside, 'secret.txt'), join(root, 'home/kernel/secret-link'));
  await symlink(outside, join(root, 'home/kernel/outdir'));
  await symlink(join(outside, 'created-through-dangling.txt'), join(root, 'tmp/dangling'));
  await symlink('/proc/self/environ', join(root, 'tmp/environ-link'));
});
afterAll(async () => {
  await svc.close();
  await rm(outside, { recursive: true, force: true });
});

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(svc.baseUrl + path, { ...init, headers: { authorization: `Bearer ${svc.apiKey}`, ...(init.headers as object) } });
}
const q = (p: string) => encodeURIComponent(p);
const write = (path: string, body: string) =>
  api(`${fsBase}/write_file?path=${q(path)}`, { method: 'PUT', body, headers: { 'content-type': 'application/octet-stream' } });

async function outsideNames(): Promise<string[]> {
  return (await readdir(outside)).sort();
}

describe('.. and absolute tricks', () => {
  it('clamps .. at the view root: /home/kernel/../../../../etc/passwd is not the host passwd', async () => {
    const res = await api(`${fsBase}/read_file?path=${q('/home/kernel/../../../../etc/passwd')}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('root:');
    const info = await svc.call('GET', `${fsBase}/file_info?path=${q('/../../etc')}`);
    expect(info.status).toBe(404);
  });

  it('writes through .. land inside the view', async () => {
    const name = `bcs-escape-${Date.now()}.txt`;
    expect((await write(`/tmp/../../../../tmp/${name}`, 'x')).status).toBe(201);
    await expect(lstat(join('/tmp', name))).rejects.toThrow();
    expect(await readFile(join(root, 'tmp', name), 'utf8')).toBe('x');
  });

  it('never exposes /proc of the host: /proc/self/environ, /proc/self/root', async () => {
    for (const path of ['/proc/self/environ', '/proc/self/root/etc/passwd', '/proc/1/cmdline']) {
      const res = await api(`${fsBase}/read_file?path=${q(path)}`);
      expect(res.status, path).toBe(404);
      const text = await res.text();
      expect(text).not.toContain('PATH=');
      expect(text).not.toContain(svc.apiKey);
    }
    const viaLink = await api(`${fsBase}/read_file?path=${q('/tmp/environ-link')}`);
    expect(viaLink.status).toBe(403);
    expect((await viaLink.json()).code).toBe('path_outside_view');
  });
});

describe('a symlink inside the view pointing outside', () => {
  it('is refused (403) for read, info, write, list, download, permissions, watch', async () => {
    const read = await api(`${fsBase}/read_file?path=${q('/home/kernel/secret-link')}`);
    expect(read.status).toBe(403);
    expect(await read.text()).not.toContain(SECRET);
    expect((await svc.call('GET', `${fsBase}/file_info?path=${q('/home/kernel/secret-link')}`)).status).toBe(403);
    expect((await write('/home/kernel/secret-link', 'overwritten')).status).toBe(403);
    expect((await svc.call('GET', `${fsBase}/list_files?path=${q('/home/kernel/outdir')}`)).status).toBe(403);
    expect((await svc.call('GET', `${fsBase}/download_dir_zip?path=${q('/home/kernel/outdir')}`)).status).toBe(403);
    const perms = await svc.call('PUT', `${fsBase}/set_file_permissions`, { body: { path: '/home/kernel/secret-link', mode: '777' } });
    expect(perms.status).toBe(403);
    expect((await svc.call('POST', `${fsBase}/watch`, { body: { path: '/home/kernel/outdir' } })).status).toBe(403);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    expect((await lstat(join(outside, 'secret.txt'))).mode & 0o777).not.toBe(0o777);
  });

  it('is listed as a link, archived as a link, and deleted or moved as the link itself', async () => {
    const list = await svc.call('GET', `${fsBase}/list_files?path=/home/kernel`);
    expect(list.body.find((f: { name: string }) => f.name === 'secret-link')).toMatchObject({ is_dir: false, mode: 'Lrwxrwxrwx' });

    const zip = await api(`${fsBase}/download_dir_zip?path=/home/kernel`);
    expect(zip.status).toBe(200);
    const bytes = Buffer.from(await zip.arrayBuffer());
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
    const entries = await zipEntries(bytes);
    expect(entries['secret-link']).toEqual({ text: join(outside, 'secret.txt'), symlink: true });

    await symlink(join(outside, 'secret.txt'), join(root, 'tmp/link-to-move'));
    const moved = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/link-to-move', dest_path: '/tmp/link-moved' } });
    expect(moved.status).toBe(200);
    expect(await readlink(join(root, 'tmp/link-moved'))).toBe(join(outside, 'secret.txt'));
    expect((await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/tmp/link-moved' } })).status).toBe(200);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });
});

describe('a symlinked parent directory', () => {
  it('refuses every write below it (403) and leaves the outside untouched', async () => {
    const before = await outsideNames();
    expect((await write('/home/kernel/outdir/new.txt', 'x')).status).toBe(403);
    expect((await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/outdir/sub/deeper' } })).status).toBe(403);
    expect((await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/home/kernel/outdir/secret.txt' } })).status).toBe(403);
    expect((await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/home/kernel/outdir/x' } })).status).toBe(403);
    await write('/tmp/to-move.txt', 'x');
    const move = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/to-move.txt', dest_path: '/home/kernel/outdir/moved.txt' } });
    expect(move.status).toBe(403);
    const steal = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/home/kernel/outdir/secret.txt', dest_path: '/tmp/stolen.txt' } });
    expect(steal.status).toBe(403);

    const form = new FormData();
    form.append('files[0][dest_path]', '/home/kernel/outdir/uploaded.txt');
    form.append('files[0][file]', new Blob(['x']), 'u.txt');
    expect((await api(`${fsBase}/upload`, { method: 'POST', body: form })).status).toBe(403);
    const zipForm = new FormData();
    zipForm.append('zip_file', new Blob([new Uint8Array(await zipOf({ 'z.txt': 'z' }))]), 'z.zip');
    zipForm.append('dest_path', '/home/kernel/outdir');
    expect((await api(`${fsBase}/upload_zip`, { method: 'POST', body: zipForm })).status).toBe(403);

    expect(await outsideNames()).toEqual(before);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('refuses a write through a dangling symlink whose target lies outside', async () => {
    const res = await write('/tmp/dangling', 'planted');
    expect(res.status).toBe(403);
    expect(await outsideNames()).not.toContain('created-through-dangling.txt');
    const form = new FormData();
    form.append('files[0][dest_path]', '/tmp/dangling');
    form.append('files[0][file]', new Blob(['x']), 'u.txt');
    expect((await api(`${fsBase}/upload`, { method: 'POST', body: form })).status).toBe(403);
    expect(await outsideNames()).not.toContain('created-through-dangling.txt');
  });

  it('refuses mkdir -p through a dangling symlink to a directory outside', async () => {
    await symlink(join(outside, 'made-through-dangling'), join(root, 'tmp/dangling-dir'));
    const res = await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/tmp/dangling-dir/sub' } });
    expect(res.status).toBe(403);
    const upload = new FormData();
    upload.append('files[0][dest_path]', '/tmp/dangling-dir/sub/f.txt');
    upload.append('files[0][file]', new Blob(['x']), 'f.txt');
    expect((await api(`${fsBase}/upload`, { method: 'POST', body: upload })).status).toBe(403);
    expect(await outsideNames()).not.toContain('made-through-dangling');
  });
});

describe('zip-slip', () => {
  async function uploadZip(zip: Buffer, dest: string): Promise<{ status: number; body: any }> {
    const form = new FormData();
    form.append('zip_file', new Blob([new Uint8Array(zip)]), 'evil.zip');
    form.append('dest_path', dest);
    const res = await api(`${fsBase}/upload_zip`, { method: 'POST', body: form });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  }

  it.each([
    ['a ../ entry', () => renamedZip({ 'zz/zz/evil.txt': 'evil', 'ok.txt': 'ok' }, 'zz/zz/', '../../')],
    ['a ..\\ entry', () => renamedZip({ 'zz/evil.txt': 'evil' }, 'zz/', '..\\')],
    ['an absolute entry', () => renamedZip({ 'ok.txt': 'ok', 'zbcs-abs-evil.txt': 'evil' }, 'zbcs-abs', '/bcs-abs')],
    ['a symlink entry', () => zipOf({ 'ok.txt': 'ok' }, { link: outside })],
  ])('refuses %s whole, writing nothing', async (_what, build) => {
    const dest = `/home/kernel/slip-${Math.random().toString(36).slice(2)}`;
    const res = await uploadZip(await build(), dest);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['body.zip_file']);
    expect(await readdir(join(root, dest)).catch(() => [])).toEqual([]);
    expect(await readdir(join(root, 'home'))).toEqual(['kernel']);
    await expect(lstat('/bcs-abs-evil.txt')).rejects.toThrow();
  });

  it('refuses an entry that would pass through a symlink already inside the destination', async () => {
    await mkdir(join(root, 'home/kernel/unpack'), { recursive: true });
    await symlink(outside, join(root, 'home/kernel/unpack/sub'));
    const before = await outsideNames();
    const res = await uploadZip(await zipOf({ 'sub/planted.txt': 'x' }), '/home/kernel/unpack');
    expect(res.status).toBe(403);
    expect(await outsideNames()).toEqual(before);
  });
});

async function zipOf(files: Record<string, string>, links: Record<string, string> = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  for (const [name, target] of Object.entries(links)) zip.addBuffer(Buffer.from(target), name, { mode: 0o120777 });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** yazl refuses to write hostile names, so a same-length placeholder is swapped in the raw bytes. */
async function renamedZip(files: Record<string, string>, placeholder: string, hostile: string): Promise<Buffer> {
  expect(hostile.length).toBe(placeholder.length);
  const zip = await zipOf(files);
  const from = Buffer.from(placeholder);
  for (let at = zip.indexOf(from); at !== -1; at = zip.indexOf(from, at + 1)) zip.write(hostile, at, 'latin1');
  return zip;
}

async function zipEntries(buffer: Buffer): Promise<Record<string, { text: string; symlink: boolean }>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const out: Record<string, { text: string; symlink: boolean }> = {};
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    const symlink = ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
    out[entry.fileName] = { text: Buffer.concat(chunks).toString(), symlink };
  }
  return out;
}

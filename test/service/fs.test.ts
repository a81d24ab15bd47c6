// /browsers/{id}/fs/*: every endpoint over real HTTP against the real service, happy paths and bad input.
import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let id: string;
let fsBase: string;

beforeAll(async () => {
  svc = await startTestService();
  const created = await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } });
  expect(created.status).toBe(200);
  id = created.body.session_id;
  fsBase = `/browsers/${id}/fs`;
});
afterAll(async () => {
  await svc.close();
});

/** Raw fetch against the service with the key; for bodies and replies svc.call cannot carry. */
function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(svc.baseUrl + path, { ...init, headers: { authorization: `Bearer ${svc.apiKey}`, ...(init.headers as object) } });
}
const q = (p: string) => encodeURIComponent(p);
const hostOf = (viewPath: string) => join(svc.sessions.get(id)!.view.root, viewPath);

async function writeFile(path: string, body: BodyInit, mode?: string): Promise<Response> {
  const res = await api(`${fsBase}/write_file?path=${q(path)}${mode ? `&mode=${mode}` : ''}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': 'application/octet-stream' },
  });
  return res;
}

function fields(res: { body: { details?: { field: string }[] } }): string[] {
  return (res.body.details ?? []).map((d) => d.field);
}

describe('write_file and read_file', () => {
  it('writes raw bytes (201, empty body) and reads them back streamed with a content-length', async () => {
    const res = await writeFile('/home/kernel/hello.txt', 'hello world');
    expect(res.status).toBe(201);
    expect(await res.text()).toBe('');
    const read = await api(`${fsBase}/read_file?path=${q('/home/kernel/hello.txt')}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('application/octet-stream');
    expect(read.headers.get('content-length')).toBe('11');
    expect(await read.text()).toBe('hello world');
    expect((await stat(hostOf('/home/kernel/hello.txt'))).mode & 0o777).toBe(0o644);
  });

  it('round-trips 20 MB byte for byte (sha256)', async () => {
    const data = randomBytes(20 * 1024 * 1024);
    expect((await writeFile('/tmp/big.bin', data)).status).toBe(201);
    const read = await api(`${fsBase}/read_file?path=${q('/tmp/big.bin')}`);
    expect(read.headers.get('content-length')).toBe(String(data.length));
    const back = Buffer.from(await read.arrayBuffer());
    expect(createHash('sha256').update(back).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('accepts any content type (or none) and applies the mode, also to an existing file', async () => {
    const asText = await api(`${fsBase}/write_file?path=${q('/tmp/t.json')}&mode=600`, {
      method: 'PUT',
      body: '{"not": "parsed"',
      headers: { 'content-type': 'application/json' },
    });
    expect(asText.status).toBe(201);
    expect((await stat(hostOf('/tmp/t.json'))).mode & 0o777).toBe(0o600);
    const noType = await api(`${fsBase}/write_file?path=${q('/tmp/t.json')}&mode=0755`, { method: 'PUT', body: new Blob(['x']) });
    expect(noType.status).toBe(201);
    expect((await stat(hostOf('/tmp/t.json'))).mode & 0o777).toBe(0o755);
    expect(await (await api(`${fsBase}/read_file?path=${q('/tmp/t.json')}`)).text()).toBe('x');
    const empty = await writeFile('/tmp/empty', '');
    expect(empty.status).toBe(201);
    expect((await stat(hostOf('/tmp/empty'))).size).toBe(0);
  });

  it('answers 404 for a missing parent or file, 400 for a directory, a relative path or a bad mode', async () => {
    const noParent = await writeFile('/home/kernel/nope/x.txt', 'x');
    expect(noParent.status).toBe(404);
    expect((await noParent.json()).code).toBe('not_found');
    expect((await api(`${fsBase}/read_file?path=${q('/home/kernel/missing')}`)).status).toBe(404);
    const dir = await svc.call('GET', `${fsBase}/read_file?path=${q('/home/kernel')}`);
    expect(dir.status).toBe(400);
    expect(fields(dir)).toEqual(['querystring.path']);
    const onDir = await writeFile('/home/kernel', 'x');
    expect(onDir.status).toBe(400);
    for (const bad of ['relative.txt', '']) {
      const res = await svc.call('GET', `${fsBase}/read_file?path=${q(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(fields(res)).toEqual(['querystring.path']);
    }
    const noPath = await svc.call('GET', `${fsBase}/read_file`);
    expect(fields(noPath)).toEqual(['querystring.path']);
    const relative = await api(`${fsBase}/write_file?path=tmp/rel.txt`, { method: 'PUT', body: 'x' });
    expect(relative.status).toBe(400);
    expect(fields({ body: await relative.json() })).toEqual(['querystring.path']);
    expect(fields({ body: await (await api(`${fsBase}/write_file`, { method: 'PUT', body: 'x' })).json() })).toEqual(['querystring.path']);
    for (const mode of ['999', '64', 'rw', '07777']) {
      const res = await writeFile('/tmp/m', 'x', mode);
      expect(res.status, mode).toBe(400);
      expect(fields({ body: await res.json() })).toEqual(['querystring.mode']);
    }
    expect((await svc.call('GET', `${fsBase}/read_file?path=/tmp/x&extra=1`)).status).toBe(400);
  });

  it('answers a large upload refused early at once, and closes that connection (nothing left half-read)', async () => {
    const big = new Uint8Array(30 * 1024 * 1024);
    const write = await api(`${fsBase}/write_file?path=/home/kernel`, { method: 'PUT', body: big });
    expect(write.status).toBe(400);
    expect(write.headers.get('connection')).toBe('close');
    const form = new FormData();
    form.append('files[0][dest_path]', '/home/kernel');
    form.append('files[0][file]', new Blob([big]), 'big');
    const upload = await api(`${fsBase}/upload`, { method: 'POST', body: form });
    expect(upload.status).toBe(400);
    expect((await upload.json()).details[0].field).toBe('body.files.0.dest_path');
    // afterAll's svc.close() would hang on a connection still holding an unread body.
  });

  it('answers 404 for an unknown or deleted browser', async () => {
    expect((await svc.call('GET', `/browsers/nope/fs/read_file?path=/tmp/x`)).status).toBe(404);
    expect((await api(`/browsers/nope/fs/write_file?path=/tmp/x`, { method: 'PUT', body: 'x' })).status).toBe(404);
  });
});

describe('list_files and file_info', () => {
  it('lists a directory sorted, with view paths and Go-style modes', async () => {
    await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/list/sub' } });
    await writeFile('/home/kernel/list/b.txt', 'bbb');
    await writeFile('/home/kernel/list/a.txt', 'a', '640');
    const res = await svc.call('GET', `${fsBase}/list_files?path=${q('/home/kernel/list/')}`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: { name: string }) => f.name)).toEqual(['a.txt', 'b.txt', 'sub']);
    const [a, , sub] = res.body;
    expect(a).toEqual({
      name: 'a.txt',
      path: '/home/kernel/list/a.txt',
      size_bytes: 1,
      is_dir: false,
      mod_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      mode: '-rw-r-----',
    });
    expect(sub).toMatchObject({ name: 'sub', path: '/home/kernel/list/sub', size_bytes: 0, is_dir: true, mode: 'drwxr-xr-x' });
  });

  it('describes one file or directory', async () => {
    const file = await svc.call('GET', `${fsBase}/file_info?path=${q('/home/kernel/list/b.txt')}`);
    expect(file.body).toMatchObject({ name: 'b.txt', path: '/home/kernel/list/b.txt', size_bytes: 3, is_dir: false });
    const root = await svc.call('GET', `${fsBase}/file_info?path=/`);
    expect(root.body).toMatchObject({ name: '/', path: '/', is_dir: true, size_bytes: 0 });
  });

  it('answers 404 for a missing path and 400 for a file to list or a relative path', async () => {
    expect((await svc.call('GET', `${fsBase}/list_files?path=/nope`)).status).toBe(404);
    expect((await svc.call('GET', `${fsBase}/file_info?path=/nope`)).status).toBe(404);
    const onFile = await svc.call('GET', `${fsBase}/list_files?path=${q('/home/kernel/list/a.txt')}`);
    expect(onFile.status).toBe(400);
    expect(fields(onFile)).toEqual(['querystring.path']);
    for (const route of ['list_files', 'file_info']) {
      const res = await svc.call('GET', `${fsBase}/${route}?path=home`);
      expect(res.status).toBe(400);
      expect(fields(res)).toEqual(['querystring.path']);
    }
  });
});

describe('create_directory, delete_file, delete_directory, move, set_file_permissions', () => {
  it('creates directories like mkdir -p with the mode asked for (201), idempotently', async () => {
    const res = await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/d1/d2/d3', mode: '750' } });
    expect(res.status).toBe(201);
    expect(res.body).toBeUndefined();
    for (const d of ['d1', 'd1/d2', 'd1/d2/d3']) expect((await stat(hostOf(`/home/kernel/${d}`))).mode & 0o777).toBe(0o750);
    expect((await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/d1' } })).status).toBe(201);
    const onFile = await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/home/kernel/list/a.txt' } });
    expect(onFile.status).toBe(409);
  });

  it('deletes a file (200) but not a directory (400), and 404s a missing one', async () => {
    await writeFile('/tmp/del.txt', 'x');
    const res = await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/tmp/del.txt' } });
    expect(res.status).toBe(200);
    expect(res.body).toBeUndefined();
    expect((await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/tmp/del.txt' } })).status).toBe(404);
    const dir = await svc.call('PUT', `${fsBase}/delete_file`, { body: { path: '/home/kernel/d1' } });
    expect(dir.status).toBe(400);
    expect(fields(dir)).toEqual(['body.path']);
  });

  it('deletes a directory recursively, refuses a file and the root', async () => {
    await writeFile('/home/kernel/d1/d2/d3/f', 'x');
    expect((await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/home/kernel/d1' } })).status).toBe(200);
    await expect(stat(hostOf('/home/kernel/d1'))).rejects.toThrow();
    expect((await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/home/kernel/d1' } })).status).toBe(404);
    expect((await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/home/kernel/list/a.txt' } })).status).toBe(400);
    const root = await svc.call('PUT', `${fsBase}/delete_directory`, { body: { path: '/' } });
    expect(root.status).toBe(400);
    expect((await stat(hostOf('/home/kernel'))).isDirectory()).toBe(true);
  });

  it('moves and renames files and directories', async () => {
    await writeFile('/tmp/mv-src.txt', 'moving');
    const res = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/mv-src.txt', dest_path: '/home/kernel/Downloads/moved.txt' } });
    expect(res.status).toBe(200);
    expect(await (await api(`${fsBase}/read_file?path=${q('/home/kernel/Downloads/moved.txt')}`)).text()).toBe('moving');
    await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/tmp/mvdir/inner' } });
    expect((await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/mvdir', dest_path: '/tmp/mvdir2' } })).status).toBe(200);
    expect((await svc.call('GET', `${fsBase}/file_info?path=/tmp/mvdir2/inner`)).body.is_dir).toBe(true);
    const missing = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/none', dest_path: '/tmp/x' } });
    expect(missing.status).toBe(404);
    const noParent = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/mvdir2', dest_path: '/no/such/dir' } });
    expect(noParent.status).toBe(404);
    const intoItself = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/mvdir2', dest_path: '/tmp/mvdir2/inner/x' } });
    expect(intoItself.status).toBe(400);
    const bad = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: 'tmp/a', dest_path: 5 } });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['body.dest_path']);
    const rel = await svc.call('PUT', `${fsBase}/move`, { body: { src_path: 'tmp/a', dest_path: '/tmp/b' } });
    expect(fields(rel)).toEqual(['body.src_path']);
    expect(fields(await svc.call('PUT', `${fsBase}/move`, { body: { src_path: '/tmp/a' } }))).toEqual(['body.dest_path']);
  });

  it('sets permissions, and owner/group by name or id; unknown names are 400', async () => {
    await writeFile('/tmp/perm.txt', 'x');
    const res = await svc.call('PUT', `${fsBase}/set_file_permissions`, { body: { path: '/tmp/perm.txt', mode: '0600' } });
    expect(res.status).toBe(200);
    expect((await stat(hostOf('/tmp/perm.txt'))).mode & 0o777).toBe(0o600);
    const me = process.getuid!();
    const myGroup = process.getgid!();
    const own = await svc.call('PUT', `${fsBase}/set_file_permissions`, {
      body: { path: '/tmp/perm.txt', mode: '640', owner: String(me), group: String(myGroup) },
    });
    expect(own.status).toBe(200);
    const info = await svc.call('GET', `${fsBase}/file_info?path=/tmp/perm.txt`);
    expect(info.body.mode).toBe('-rw-r-----');
    const unknownUser = await svc.call('PUT', `${fsBase}/set_file_permissions`, {
      body: { path: '/tmp/perm.txt', mode: '644', owner: 'no-such-user-bcs' },
    });
    expect(unknownUser.status).toBe(400);
    expect(fields(unknownUser)).toEqual(['body.owner']);
    const unknownGroup = await svc.call('PUT', `${fsBase}/set_file_permissions`, {
      body: { path: '/tmp/perm.txt', mode: '644', group: 'no-such-group-bcs' },
    });
    expect(fields(unknownGroup)).toEqual(['body.group']);
    expect((await stat(hostOf('/tmp/perm.txt'))).mode & 0o777).toBe(0o640);
    const noMode = await svc.call('PUT', `${fsBase}/set_file_permissions`, { body: { path: '/tmp/perm.txt' } });
    expect(fields(noMode)).toEqual(['body.mode']);
    expect((await svc.call('PUT', `${fsBase}/set_file_permissions`, { body: { path: '/tmp/none', mode: '644' } })).status).toBe(404);
  });

  it('names the bad field of every JSON body: missing, wrong type, unknown, relative', async () => {
    for (const route of ['create_directory', 'delete_file', 'delete_directory']) {
      const missing = await svc.call('PUT', `${fsBase}/${route}`, { body: {} });
      expect(missing.status, route).toBe(400);
      expect(fields(missing)).toEqual(['body.path']);
      expect(fields(await svc.call('PUT', `${fsBase}/${route}`, { body: { path: 7 } }))).toEqual(['body.path']);
      expect(fields(await svc.call('PUT', `${fsBase}/${route}`, { body: { path: 'rel/x' } }))).toEqual(['body.path']);
      expect(fields(await svc.call('PUT', `${fsBase}/${route}`, { body: { path: '/tmp/x', extra: 1 } }))).toEqual(['body.extra']);
      expect((await svc.call('PUT', `${fsBase}/${route}`)).status).toBe(400);
    }
    expect(fields(await svc.call('PUT', `${fsBase}/create_directory`, { body: { path: '/tmp/x', mode: '8' } }))).toEqual(['body.mode']);
  });
});

describe('upload, upload_zip, download_dir_zip', () => {
  it('uploads several files as files[N][file] + files[N][dest_path], in either part order (201)', async () => {
    const form = new FormData();
    form.append('files[0][dest_path]', '/home/kernel/up/one.txt');
    form.append('files[0][file]', new Blob(['first']), 'one.txt');
    form.append('files[1][file]', new Blob(['second']), 'two.txt'); // file before its dest_path
    form.append('files[1][dest_path]', '/tmp/two.txt');
    const res = await api(`${fsBase}/upload`, { method: 'POST', body: form });
    expect(res.status).toBe(201);
    expect(await (await api(`${fsBase}/read_file?path=${q('/home/kernel/up/one.txt')}`)).text()).toBe('first');
    expect(await (await api(`${fsBase}/read_file?path=/tmp/two.txt`)).text()).toBe('second');
  });

  it('rejects uploads with a missing part, an unknown field, a relative dest or no multipart body', async () => {
    const cases: Array<[(f: FormData) => void, string]> = [
      [(f) => f.append('files[0][file]', new Blob(['x']), 'x'), 'body.files.0.dest_path'],
      [(f) => f.append('files[0][dest_path]', '/tmp/x'), 'body.files.0.file'],
      [(f) => f.append('files[0][dest_path]', 'tmp/x'), 'body.files.0.dest_path'],
      [(f) => f.append('other', 'x'), 'body.other'],
      [() => {}, 'body.files'],
    ];
    for (const [build, field] of cases) {
      const form = new FormData();
      build(form);
      const res = await api(`${fsBase}/upload`, { method: 'POST', body: form });
      expect(res.status, field).toBe(400);
      expect(fields({ body: await res.json() }), field).toEqual([field]);
    }
    const json = await svc.call('POST', `${fsBase}/upload`, { body: { files: [] } });
    expect(json.status).toBe(400);
    expect(fields(json)).toEqual(['body']);
    // A body cut off mid-file is the client's fault (400), and leaves no half-written file behind.
    const truncated = await api(`${fsBase}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body:
        '--xyz\r\nContent-Disposition: form-data; name="files[0][dest_path]"\r\n\r\n/tmp/cut.txt\r\n' +
        '--xyz\r\nContent-Disposition: form-data; name="files[0][file]"; filename="a"\r\n\r\nabc',
    });
    expect(truncated.status).toBe(400);
    expect(fields({ body: await truncated.json() })).toEqual(['body']);
    expect((await api(`${fsBase}/file_info?path=/tmp/cut.txt`)).status).toBe(404);
  });

  it('extracts an uploaded zip (201) and downloads a directory as a zip stream', async () => {
    const zip = await zipOf({ 'a.txt': 'alpha', 'nested/b.txt': 'beta' }, ['emptydir/']);
    const form = new FormData();
    form.append('zip_file', new Blob([new Uint8Array(zip)]), 'x.zip');
    form.append('dest_path', '/home/kernel/unzipped');
    const res = await api(`${fsBase}/upload_zip`, { method: 'POST', body: form });
    expect(res.status).toBe(201);
    expect(await (await api(`${fsBase}/read_file?path=${q('/home/kernel/unzipped/nested/b.txt')}`)).text()).toBe('beta');
    expect((await svc.call('GET', `${fsBase}/file_info?path=${q('/home/kernel/unzipped/emptydir')}`)).body.is_dir).toBe(true);

    const down = await api(`${fsBase}/download_dir_zip?path=${q('/home/kernel/unzipped')}`);
    expect(down.status).toBe(200);
    expect(down.headers.get('content-type')).toBe('application/zip');
    const entries = await unzip(Buffer.from(await down.arrayBuffer()));
    expect(entries).toEqual({ 'a.txt': 'alpha', 'emptydir/': '', 'nested/': '', 'nested/b.txt': 'beta' });
  });

  it('rejects a bad zip upload and a bad download path', async () => {
    const notZip = new FormData();
    notZip.append('zip_file', new Blob(['this is not a zip']), 'x.zip');
    notZip.append('dest_path', '/tmp/nz');
    const res = await api(`${fsBase}/upload_zip`, { method: 'POST', body: notZip });
    expect(res.status).toBe(400);
    expect(fields({ body: await res.json() })).toEqual(['body.zip_file']);
    const noDest = new FormData();
    noDest.append('zip_file', new Blob([new Uint8Array(await zipOf({ a: 'a' }))]), 'x.zip');
    const r2 = await api(`${fsBase}/upload_zip`, { method: 'POST', body: noDest });
    expect(fields({ body: await r2.json() })).toEqual(['body.dest_path']);
    // Corrupt deflate data inside an otherwise valid archive.
    const corrupt = await zipOf({ 'c.txt': 'hello '.repeat(2000) });
    const dataStart = 30 + corrupt.readUInt16LE(26) + corrupt.readUInt16LE(28);
    corrupt.fill(0xff, dataStart + 2, dataStart + 40);
    const bad = new FormData();
    bad.append('zip_file', new Blob([new Uint8Array(corrupt)]), 'x.zip');
    bad.append('dest_path', '/tmp/corrupt');
    const r3 = await api(`${fsBase}/upload_zip`, { method: 'POST', body: bad });
    expect(r3.status).toBe(400);
    expect(fields({ body: await r3.json() })).toEqual(['body.zip_file']);
    expect((await svc.call('GET', `${fsBase}/download_dir_zip?path=/nope`)).status).toBe(404);
    const onFile = await svc.call('GET', `${fsBase}/download_dir_zip?path=${q('/home/kernel/unzipped/a.txt')}`);
    expect(onFile.status).toBe(400);
    expect(fields(await svc.call('GET', `${fsBase}/download_dir_zip?path=rel`))).toEqual(['querystring.path']);
  });
});

describe('watch endpoints (input checks; events are in fs-watch.test.ts)', () => {
  it('starts (201 {watch_id}) and stops (204) a watch; unknown ids are 404; bad bodies name the field', async () => {
    const start = await svc.call('POST', `${fsBase}/watch`, { body: { path: '/tmp', recursive: true } });
    expect(start.status).toBe(201);
    expect(start.body).toEqual({ watch_id: expect.any(String) });
    expect((await svc.call('DELETE', `${fsBase}/watch/${start.body.watch_id}`)).status).toBe(204);
    expect((await svc.call('DELETE', `${fsBase}/watch/${start.body.watch_id}`)).status).toBe(404);
    expect((await svc.call('GET', `${fsBase}/watch/nope/events`)).status).toBe(404);
    expect((await svc.call('POST', `${fsBase}/watch`, { body: { path: '/nope' } })).status).toBe(404);
    expect(fields(await svc.call('POST', `${fsBase}/watch`, { body: { path: '/tmp/big.bin' } }))).toEqual(['body.path']);
    expect(fields(await svc.call('POST', `${fsBase}/watch`, { body: { path: '/tmp', recursive: 'yes' } }))).toEqual(['body.recursive']);
    expect(fields(await svc.call('POST', `${fsBase}/watch`, { body: { path: 'tmp' } }))).toEqual(['body.path']);
    expect(fields(await svc.call('POST', `${fsBase}/watch`, { body: {} }))).toEqual(['body.path']);
  });
});

async function zipOf(files: Record<string, string>, dirs: string[] = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  for (const dir of dirs) zip.addEmptyDirectory(dir);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function unzip(buffer: Buffer): Promise<Record<string, string>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  const out: Record<string, string> = {};
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    if (!entry.fileName.endsWith('/')) for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out[entry.fileName] = Buffer.concat(chunks).toString();
  }
  return out;
}

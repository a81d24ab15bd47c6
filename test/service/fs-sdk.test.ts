// The hosted SDK's browsers.fs.* calls, unchanged, against the embedded service.
import Kernel, { BadRequestError, NotFoundError, PermissionDeniedError, toFile } from '@onkernel/sdk';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import yauzl from 'yauzl';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
let id: string;
let scratch: string;

beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  id = (await kernel.browsers.create({ headless: true, timeout_seconds: 600 })).session_id;
  scratch = await mkdtemp(join(tmpdir(), 'bcs-sdk-fs-'));
});
afterAll(async () => {
  await svc.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('@onkernel/sdk browsers.fs against the embedded service', () => {
  it('writeFile, readFile, fileInfo, listFiles, createDirectory, move, setFilePermissions, deleteFile, deleteDirectory', async () => {
    await kernel.browsers.fs.createDirectory(id, { path: '/home/kernel/sdk/docs', mode: '755' });
    await kernel.browsers.fs.writeFile(id, 'written by the sdk', { path: '/home/kernel/sdk/docs/note.txt', mode: '600' });
    const read = await kernel.browsers.fs.readFile(id, { path: '/home/kernel/sdk/docs/note.txt' });
    expect(await read.text()).toBe('written by the sdk');

    const info = await kernel.browsers.fs.fileInfo(id, { path: '/home/kernel/sdk/docs/note.txt' });
    expect(info).toMatchObject({ name: 'note.txt', path: '/home/kernel/sdk/docs/note.txt', size_bytes: 18, is_dir: false, mode: '-rw-------' });
    expect(Number.isNaN(Date.parse(info.mod_time))).toBe(false);

    const list = await kernel.browsers.fs.listFiles(id, { path: '/home/kernel/sdk' });
    expect(list).toEqual([expect.objectContaining({ name: 'docs', is_dir: true, mode: 'drwxr-xr-x' })]);

    await kernel.browsers.fs.move(id, { src_path: '/home/kernel/sdk/docs/note.txt', dest_path: '/home/kernel/sdk/renamed.txt' });
    await kernel.browsers.fs.setFilePermissions(id, { path: '/home/kernel/sdk/renamed.txt', mode: '0644' });
    expect((await kernel.browsers.fs.fileInfo(id, { path: '/home/kernel/sdk/renamed.txt' })).mode).toBe('-rw-r--r--');
    await kernel.browsers.fs.deleteFile(id, { path: '/home/kernel/sdk/renamed.txt' });
    await kernel.browsers.fs.deleteDirectory(id, { path: '/home/kernel/sdk' });
    await expect(kernel.browsers.fs.fileInfo(id, { path: '/home/kernel/sdk' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('maps errors onto the SDK’s classes', async () => {
    await expect(kernel.browsers.fs.readFile(id, { path: 'relative' })).rejects.toBeInstanceOf(BadRequestError);
    await expect(kernel.browsers.fs.readFile(id, { path: '/nope' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(kernel.browsers.fs.readFile(id, { path: '/home/kernel/../../proc/self/environ' })).rejects.toBeInstanceOf(NotFoundError);
    const { symlink } = await import('node:fs/promises');
    await symlink('/etc/passwd', join(svc.sessions.get(id)!.view.root, 'tmp/passwd'));
    await expect(kernel.browsers.fs.readFile(id, { path: '/tmp/passwd' })).rejects.toBeInstanceOf(PermissionDeniedError);
  });

  it('upload (Files and streams, in either part order), uploadZip and downloadDirZip', async () => {
    const local = join(scratch, 'streamed.txt');
    await writeFile(local, 'from a read stream');
    await kernel.browsers.fs.upload(id, {
      files: [
        { dest_path: '/home/kernel/Downloads/one.txt', file: await toFile(Buffer.from('from a File'), 'one.txt') },
        { file: createReadStream(local), dest_path: '/home/kernel/Downloads/streamed.txt' },
      ],
    });
    expect(await (await kernel.browsers.fs.readFile(id, { path: '/home/kernel/Downloads/one.txt' })).text()).toBe('from a File');
    expect(await (await kernel.browsers.fs.readFile(id, { path: '/home/kernel/Downloads/streamed.txt' })).text()).toBe('from a read stream');

    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('zipped'), 'inner/z.txt');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    await kernel.browsers.fs.uploadZip(id, { dest_path: '/home/kernel/extracted', zip_file: await toFile(Buffer.concat(chunks), 'a.zip') });
    expect(await (await kernel.browsers.fs.readFile(id, { path: '/home/kernel/extracted/inner/z.txt' })).text()).toBe('zipped');

    const download = await kernel.browsers.fs.downloadDirZip(id, { path: '/home/kernel/extracted' });
    expect(download.headers.get('content-type')).toBe('application/zip');
    const back = await yauzl.fromBufferPromise(Buffer.from(await download.arrayBuffer()), { lazyEntries: true });
    const names: string[] = [];
    for await (const entry of back.eachEntry()) names.push(entry.fileName);
    expect(names).toEqual(['inner/', 'inner/z.txt']);
  });

  it('watch.start, watch.events and watch.stop', async () => {
    const { watch_id: watchId } = await kernel.browsers.fs.watch.start(id, { path: '/home/kernel/Downloads', recursive: true });
    expect(watchId).toBeTruthy();
    const stream = await kernel.browsers.fs.watch.events(watchId!, { id });
    await kernel.browsers.fs.writeFile(id, 'hello', { path: '/home/kernel/Downloads/watched.txt' });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(`${event.type} ${event.path}`);
      if (event.type === 'CREATE' && event.path === '/home/kernel/Downloads/watched.txt') {
        expect(event).toEqual({ type: 'CREATE', path: '/home/kernel/Downloads/watched.txt', name: 'watched.txt', is_dir: false });
        break;
      }
    }
    expect(seen).toContain('CREATE /home/kernel/Downloads/watched.txt');
    await kernel.browsers.fs.watch.stop(watchId!, { id });
    await expect(kernel.browsers.fs.watch.stop(watchId!, { id })).rejects.toBeInstanceOf(NotFoundError);
  });
});

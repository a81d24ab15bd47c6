// Binary responses and non-JSON request bodies (raw bytes, multipart), which the host APIs use:
// screenshots and fs/read_file answer bytes; fs/write_file takes a raw body; fs/upload is multipart.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, CloudClient } from '../../src/api/index.js';
import { startScriptedServer, type ScriptedServer } from './scripted-server.js';

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});
beforeEach(() => {
  srv.requests.length = 0;
});

const client = () => new CloudClient({ baseUrl: srv.url, apiKey: 'sk_test_bodies', retryBaseMs: 5 });

describe('responseType: bytes', () => {
  it('returns the body as bytes whatever the content type, with the request id', async () => {
    srv.script = () => ({ body: 'ÿ\u0000PNG', headers: { 'content-type': 'image/png', 'x-request-id': 'req_bytes' } });
    const res = await client().request<Uint8Array>('POST', '/browsers/b1/computer/screenshot', { responseType: 'bytes' });
    expect(res.data).toBeInstanceOf(Uint8Array);
    expect([...res.data]).toEqual([0xc3, 0xbf, 0x00, 0x50, 0x4e, 0x47]);
    expect(res.requestId).toBe('req_bytes');
  });

  it('gives bytes even for a JSON content type, and an empty array for an empty body', async () => {
    srv.script = (_req, i) => (i === 0 ? { body: { a: 1 } } : { status: 200 });
    const json = await client().request<Uint8Array>('GET', '/f', { responseType: 'bytes' });
    expect(new TextDecoder().decode(json.data)).toBe('{"a":1}');
    const empty = await client().request<Uint8Array>('GET', '/f', { responseType: 'bytes' });
    expect(empty.data).toEqual(new Uint8Array(0));
  });

  it('still turns an error answer into an ApiError with its code and message', async () => {
    srv.script = () => ({ status: 404, body: { code: 'not_found', message: "path '/x' not found" } });
    const err = await client().request('GET', '/browsers/b1/fs/read_file', { query: { path: '/x' }, responseType: 'bytes' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    expect((err as Error).message).toContain("path '/x' not found");
  });

  it('leaves JSON decoding as it was without responseType', async () => {
    srv.script = () => ({ body: { text: 'clip' } });
    expect((await client().request('POST', '/browsers/b1/computer/clipboard/read')).data).toEqual({ text: 'clip' });
  });
});

describe('request bodies that are not JSON', () => {
  it('sends bytes as they are, with the caller’s content type', async () => {
    srv.script = () => ({ status: 201 });
    const bytes = Buffer.from('héllo\n', 'utf8');
    await client().request('PUT', '/browsers/b1/fs/write_file', {
      query: { path: '/tmp/a.txt', mode: '600' },
      body: bytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    const req = srv.requests[0]!;
    expect(req.query.get('path')).toBe('/tmp/a.txt');
    expect(req.headers['content-type']).toBe('application/octet-stream');
    expect(req.body).toBe('héllo\n');
  });

  it('sends FormData as multipart with its boundary', async () => {
    srv.script = () => ({ status: 201 });
    const form = new FormData();
    form.append('files[0][dest_path]', '/tmp/up.txt');
    form.append('files[0][file]', new Blob(['uploaded bytes']), 'up.txt');
    await client().request('POST', '/browsers/b1/fs/upload', { body: form, maxRetries: 0 });
    const req = srv.requests[0]!;
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.body).toContain('name="files[0][dest_path]"');
    expect(req.body).toContain('filename="up.txt"');
    expect(req.body).toContain('uploaded bytes');
  });
});

// A request refused before its body was read (a missing browser, a browser that cannot take the upload, a
// body over the route's limit, no API key) is still answered so that the client reads the answer: the
// client is typically still sending when the refusal goes out. On a kept-alive connection the calls after
// it work too. Checked with the hosted SDK (its own fetch and keep-alive pool) and at the raw HTTP level on
// one socket, where nothing can hide a broken connection behind a fresh one.
import Kernel, { BadRequestError, NotFoundError, toFile } from '@onkernel/sdk';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
let sessionId: string;

beforeAll(async () => {
  // The headless shell as the only Chromium: a browser that cannot load extensions, refused with a 400.
  svc = await startTestService({ chromium: '/usr/bin/chromium-headless-shell', headlessShell: 'off' });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  sessionId = (await kernel.browsers.create({ headless: true, timeout_seconds: 600 })).session_id;
});
afterAll(async () => {
  await svc?.close();
});

const MiB = 1024 * 1024;
const zip = (bytes: number) => toFile(Buffer.alloc(bytes, 7), 'ext.zip');

describe('a refusal answered before the body was read', () => {
  it('reaches the SDK three times in a row, and the next call on its connections works', async () => {
    for (let i = 0; i < 3; i++) {
      const err = await kernel.browsers.loadExtensions(sessionId, { extensions: [{ name: `ext${i}`, zip_file: await zip(512 * 1024) }] }).catch((e: unknown) => e);
      expect(err, String(err)).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).error).toMatchObject({ code: 'extensions_unavailable' });
      // Read whole before the answer: the connection is not given up.
      expect((err as BadRequestError).headers?.get('connection')).not.toBe('close');
    }
    expect((await kernel.browsers.retrieve(sessionId)).session_id).toBe(sessionId);
  });

  it('gives an upload to a browser that does not exist its 404, every time, however large', async () => {
    // 64 MiB is more than the socket buffers hold: the client is still sending when the answer goes out.
    for (const size of [3 * MiB, 3 * MiB, 3 * MiB, 64 * MiB, 64 * MiB]) {
      const err = await kernel.browsers.loadExtensions('no-such-browser', { extensions: [{ name: 'big', zip_file: await zip(size) }] }).catch((e: unknown) => e);
      expect(err, String(err)).toBeInstanceOf(NotFoundError);
    }
    expect((await kernel.browsers.retrieve(sessionId)).session_id).toBe(sessionId);
  });

  it('answers a large JSON body to a refused route, whatever refused it', async () => {
    const big = JSON.stringify({ name: 'x', padding: 'p'.repeat(64 * MiB) });
    const cases: [string, string, Record<string, string>, number][] = [
      // Over the route's body limit.
      ['POST', '/browsers', { authorization: `Bearer ${svc.apiKey}` }, 413],
      ['PATCH', '/browser_pools/no-such-pool', { authorization: `Bearer ${svc.apiKey}` }, 413],
      // No key: refused before the route looks at the body at all.
      ['POST', '/profiles', {}, 401],
      ['POST', `/browsers/${sessionId}/computer/click_mouse`, { authorization: 'Bearer not-a-key' }, 401],
    ];
    for (const [method, path, headers, status] of cases) {
      const res = await fetch(svc.baseUrl + path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: big });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(Object.keys((await res.json()) as object).sort(), `${method} ${path}`).toEqual(['code', 'message']);
    }
  });
});

/** One socket for a whole conversation: each answer is read whole before the next request goes out. */
class Conversation {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  ended = false;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      this.waiting?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.waiting?.();
    });
    socket.on('error', () => {
      this.ended = true;
      this.waiting?.();
    });
  }
  static open(baseUrl: string): Promise<Conversation> {
    const { port } = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => resolve(new Conversation(socket))).once('error', reject);
    });
  }
  /** Sends the head and the body (waiting for the kernel to take each chunk), then reads one answer. */
  async exchange(head: string, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    const answer = this.answer();
    await new Promise<void>((resolve, reject) => this.socket.write(head, (err) => (err ? reject(err) : resolve())));
    for (let at = 0; at < body.length; at += 64 * 1024) {
      await new Promise<void>((resolve, reject) => this.socket.write(body.subarray(at, at + 64 * 1024), (err) => (err ? reject(err) : resolve())));
    }
    return answer;
  }
  private async answer(): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const lines = this.buffered.subarray(0, end).toString().split('\r\n');
        const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffered.length >= end + 4 + length) {
          const text = this.buffered.subarray(end + 4, end + 4 + length).toString();
          this.buffered = this.buffered.subarray(end + 4 + length);
          return { status: Number(lines[0]!.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined };
        }
      }
      if (this.ended) throw new Error(`the connection ended before a whole answer came (${this.buffered.length} bytes)`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }
  /** Resolves when the server has ended the connection. */
  async whenEnded(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => (this.waiting = resolve));
  }
  close(): void {
    this.socket.destroy();
  }
}

function multipartRequest(path: string, bytes: number): { head: string; body: Buffer } {
  const boundary = 'x-boundary-x';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="extensions[0][name]"\r\n\r\next\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="extensions[0][zip_file]"; filename="ext.zip"\r\nContent-Type: application/zip\r\n\r\n`),
    Buffer.alloc(bytes, 7),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.apiKey}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return { head, body };
}

describe('on one socket', () => {
  it('answers three refused uploads and then a normal call, the connection kept', async () => {
    const conversation = await Conversation.open(svc.baseUrl);
    try {
      for (const [path, status] of [
        [`/browsers/${sessionId}/extensions`, 400],
        ['/browsers/no-such-browser/extensions', 404],
        [`/browsers/${sessionId}/extensions`, 400],
      ] as const) {
        const { head, body } = multipartRequest(path, 256 * 1024);
        const res = await conversation.exchange(head, body);
        expect(res.status, path).toBe(status);
        expect(res.headers.connection, path).not.toBe('close');
      }
      const res = await conversation.exchange(`GET /browsers/${sessionId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.apiKey}\r\n\r\n`, Buffer.alloc(0));
      expect(res.status).toBe(200);
      expect(res.body.session_id).toBe(sessionId);
    } finally {
      conversation.close();
    }
  });

  it('answers a refused JSON body within the limit and keeps the connection', async () => {
    const conversation = await Conversation.open(svc.baseUrl);
    try {
      const body = Buffer.from(JSON.stringify({ name: 'p'.repeat(512 * 1024) }));
      const res = await conversation.exchange(`POST /profiles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body);
      expect(res.status).toBe(401);
      expect(res.headers.connection).not.toBe('close');
      const next = await conversation.exchange(`GET /browsers/${sessionId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.apiKey}\r\n\r\n`, Buffer.alloc(0));
      expect(next.status).toBe(200);
    } finally {
      conversation.close();
    }
  });

  it('answers JSON bodies too large to wait for, then closes once the client has sent them', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'x', padding: 'p'.repeat(64 * MiB) }));
    for (const [method, path, auth, status] of [
      ['POST', '/browsers', `Bearer ${svc.apiKey}`, 413],
      ['POST', '/browser_pools', `Bearer ${svc.apiKey}`, 413],
      ['POST', '/profiles', 'Bearer not-a-key', 401],
    ] as const) {
      const conversation = await Conversation.open(svc.baseUrl);
      try {
        const head = `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        const res = await conversation.exchange(head, body);
        expect(res.status, path).toBe(status);
        expect(res.headers.connection, path).toBe('close');
        await conversation.whenEnded();
      } finally {
        conversation.close();
      }
    }
  });

  it('answers an upload too large to wait for, then closes only once the client has sent it', async () => {
    const conversation = await Conversation.open(svc.baseUrl);
    try {
      const { head, body } = multipartRequest('/browsers/no-such-browser/extensions', 64 * MiB);
      const res = await conversation.exchange(head, body);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
      expect(res.headers.connection).toBe('close');
      await conversation.whenEnded();
    } finally {
      conversation.close();
    }
  });
});

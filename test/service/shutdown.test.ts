// Stopping the service is bounded by its grace period, not by its slowest client: a socket that never
// sent a request, or stopped half-way through its headers, once held close() until Node's 60 s header timeout.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closeWithin, trackSockets } from '../../src/service/http-shutdown.js';
import { startTestService } from '../helpers/service.js';

/** A raw client: connects, writes `bytes` (if any) and waits; resolves `closed` when the server cuts it. */
async function rawClient(port: number, bytes?: string): Promise<{ closed: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  if (bytes) socket.write(bytes);
  socket.on('error', () => {});
  socket.resume();
  return { closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

describe('service shutdown', () => {
  it('cuts clients that would hold it open: a silent socket, half a request, a CDP path with a token in it', async () => {
    const svc = await startTestService();
    const port = Number(new URL(svc.baseUrl).port);
    const silent = await rawClient(port);
    const half = await rawClient(port, 'GET /browsers HTTP/1.1\r\nHost: x\r\n');
    const cdp = await rawClient(port, 'GET /browsers/abc/cdp/jwt/secret-token/json/version HTTP/1.1\r\nHost: x\r\n');
    // Node's own bound for these is its header timeout (60 s): a close within it is ours.
    const started = Date.now();
    await svc.close();
    expect(Date.now() - started).toBeLessThan(30_000);
    await Promise.all([silent.closed, half.closed, cdp.closed]);
  }, 60_000);

  it('lets a request under way finish within the grace, and says what it cut', async () => {
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const server = http.createServer((req, res) => {
      if (req.url === '/slow') void answered.then(() => res.end('done'));
    });
    const sockets = trackSockets(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const slow = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    await new Promise<void>((resolve) => server.once('request', () => resolve()));
    const silent = await rawClient(port);
    let cut: string[] | undefined;
    const closing = closeWithin(() => new Promise<void>((resolve) => server.close(() => resolve())), sockets, 60_000, (open) => (cut = open));
    // The answer under way still goes out after the server stopped taking connections.
    release();
    expect(await slow).toBe('done');
    // Nothing was cut before the grace ran out: the silent socket is still there.
    expect(sockets.describe()).toContain('no request');
    expect(cut).toBeUndefined();
    sockets.cutAll();
    await closing;
    await silent.closed;
    expect(sockets.describe()).toEqual([]);
  });

  it('names what it cuts by method and path, never a token', async () => {
    const server = http.createServer(() => {});
    const sockets = trackSockets(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const seen = new Promise<void>((resolve) => server.once('request', () => resolve()));
    await rawClient(port, 'GET /browsers/abc/cdp/jwt/secret-token/json/version?token=t HTTP/1.1\r\nHost: x\r\n\r\n');
    await seen;
    await rawClient(port);
    let cut: string[] = [];
    await closeWithin(() => new Promise<void>((resolve) => server.close(() => resolve())), sockets, 100, (open) => (cut = open));
    expect(cut.sort()).toEqual(['GET /browsers/abc/cdp/json/version', 'no request']);
    expect(JSON.stringify(cut)).not.toContain('secret');
  });
});

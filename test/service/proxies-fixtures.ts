// Test doubles for the proxy tests: a small HTTP forward proxy (absolute-form requests and CONNECT) that
// requires Basic proxy credentials and records every request, which resolves made-up host names (site.test)
// to local servers; and local http/https sites to load through it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SeenRequest {
  method: string;
  /** The absolute URL, or host:port for CONNECT. */
  target: string;
  /** The Proxy-Authorization header as received. */
  auth?: string;
  accepted: boolean;
}

export interface TestProxy {
  port: number;
  seen: SeenRequest[];
  /** Requests that passed the credential check. */
  accepted(): SeenRequest[];
  close(): Promise<void>;
}

/** `hosts` maps a made-up host name to the local port that serves it. */
export async function startTestProxy(opts: { username: string; password: string; hosts: Record<string, number> }): Promise<TestProxy> {
  const expected = `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`;
  const seen: SeenRequest[] = [];
  const sockets = new Set<net.Socket>();
  const check = (method: string, target: string, auth: string | undefined) => {
    const accepted = auth === expected;
    seen.push({ method, target, auth, accepted });
    return accepted;
  };
  const server = http.createServer((req, res) => {
    if (!check(req.method!, req.url!, req.headers['proxy-authorization'])) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(req.url!);
    const port = opts.hosts[url.hostname];
    if (!port) {
      res.writeHead(502).end('unknown host');
      return;
    }
    const out = http.request({ host: '127.0.0.1', port, method: req.method, path: url.pathname + url.search, headers: { ...req.headers, 'x-via-test-proxy': '1' } }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('connect', (req, client: net.Socket, head) => {
    client.on('error', () => client.destroy());
    if (!check('CONNECT', req.url!, req.headers['proxy-authorization'])) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const [host] = req.url!.split(':');
    const port = opts.hosts[host!];
    if (!port) {
      client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    const upstream = net.connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    accepted: () => seen.filter((s) => s.accepted),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TestSite {
  port: number;
  close(): Promise<void>;
}

/** Answers every path with a page that names the path and the Host it was asked for. */
function page(req: http.IncomingMessage, res: http.ServerResponse): void {
  const via = req.headers['x-via-test-proxy'] ? 'via-proxy' : 'direct';
  res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>${req.headers.host}${req.url}</title><h1 id="via">${via}</h1>`);
}

export async function startSite(): Promise<TestSite> {
  return listen(http.createServer(page));
}

/** A self-signed certificate for `hosts` (openssl), or undefined where openssl is missing. */
export function selfSignedCert(hosts: string[]): { key: string; cert: string } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'bcs-cert-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      '-subj', `/CN=${hosts[0]}`, '-addext', `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startSecureSite(tls: { key: string; cert: string }): Promise<TestSite> {
  return listen(https.createServer(tls, page));
}

async function listen(server: http.Server | https.Server): Promise<TestSite> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The pieces under proxy routing, without Chromium: the secrets box, bypass rules, and the forwarder in
// front of a real test proxy (credentials added, 407 turned into an explained 502, bypassed hosts direct,
// CONNECT tunnels, switching upstream drops open tunnels).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bypassMatcher } from '../../src/service/host/proxy/bypass.js';
import { ProxyForwarder } from '../../src/service/host/proxy/forwarder.js';
import { EgressPolicy, ServicePorts } from '../../src/service/host/network/index.js';
import type { Upstream } from '../../src/service/host/proxy/upstream.js';
import { SecretsBox } from '../../src/service/secrets-box.js';
import { selfSignedCert, startSecureSite, startSite, startTestProxy, type TestProxy, type TestSite } from './proxies-fixtures.js';

/** Units here use sites on loopback, which the local-development policy lets through. */
const local = { policy: new EgressPolicy('local', new ServicePorts()) };

describe('SecretsBox', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bcs-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates its key on first use (0600), round-trips, and binds each value to its context', () => {
    const box = SecretsBox.forDataDir(dir);
    expect(existsSync(join(dir, 'secrets.key'))).toBe(false);
    const sealed = box.seal('hunter2-hunter2', 'proxy:a:password');
    expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
    expect(sealed).not.toContain('hunter2');
    expect(box.seal('hunter2-hunter2', 'proxy:a:password')).not.toBe(sealed);
    // Another instance (a restarted service) reads the same key.
    expect(SecretsBox.forDataDir(dir).open(sealed, 'proxy:a:password')).toBe('hunter2-hunter2');
    expect(() => box.open(sealed, 'proxy:b:password')).toThrow(/does not decrypt/);
    const [v, iv, tag, data] = sealed.split('.');
    // A different character than the one there (whatever the random IV made of it), inside the ciphertext.
    const flipped = `${v}.${iv}.${tag}.${data!.slice(0, -2)}${data!.at(-2) === 'A' ? 'B' : 'A'}${data!.slice(-1)}`;
    expect(() => box.open(flipped, 'proxy:a:password')).toThrow();
  });

  it('says what is wrong when the key is missing or not a key, as the service being unable to serve it (503)', () => {
    const other = mkdtempSync(join(tmpdir(), 'bcs-secrets-'));
    try {
      const sealed = SecretsBox.forDataDir(dir).seal('x', 'c');
      expect(() => SecretsBox.forDataDir(other).open(sealed, 'c')).toThrow(expect.objectContaining({ kind: 'unavailable', code: 'secret_unavailable' }));
      writeFileSync(join(other, 'secrets.key'), 'short');
      expect(() => SecretsBox.forDataDir(other).seal('x', 'c')).toThrow(/not a 32-byte key/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('bypass rules', () => {
  it('match hosts, subdomains, IPs and CIDR ranges, optionally per port', () => {
    const m = bypassMatcher(['intranet.example', '*.corp.example', '.lan', '10.0.0.0/8', '192.168.1.5', 'api.example:8443', '[fd00::1]', 'fc00::/7']);
    expect(m('intranet.example', 80)).toBe(true);
    expect(m('INTRANET.example.', 443)).toBe(true);
    expect(m('www.intranet.example', 80)).toBe(false);
    expect(m('a.b.corp.example', 443)).toBe(true);
    expect(m('corp.example', 443)).toBe(false);
    expect(m('printer.lan', 631)).toBe(true);
    expect(m('10.20.30.40', 80)).toBe(true);
    expect(m('11.0.0.1', 80)).toBe(false);
    expect(m('192.168.1.5', 80)).toBe(true);
    expect(m('api.example', 8443)).toBe(true);
    expect(m('api.example', 443)).toBe(false);
    expect(m('[fd00::1]', 443)).toBe(true);
    expect(m('fd12::9', 443)).toBe(true);
    expect(m('example.com', 443)).toBe(false);
    expect(bypassMatcher([])('anything', 1)).toBe(false);
  });
});

describe('ProxyForwarder', () => {
  let site: TestSite;
  let proxy: TestProxy;
  let upstream: Upstream;
  beforeAll(async () => {
    site = await startSite();
    proxy = await startTestProxy({ username: 'u', password: 'right-password', hosts: { 'site.test': site.port } });
    upstream = { proxyId: 'p1', protocol: 'http', host: '127.0.0.1', port: proxy.port, username: 'u', password: 'right-password' };
  });
  afterAll(async () => {
    await proxy.close();
    await site.close();
  });

  /** An absolute-form GET through the forwarder, as Chromium sends it. */
  const get = (forwarder: ProxyForwarder, url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(forwarder.proxyServer);
      const req = http.request({ host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host }, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });

  /** A CONNECT through the forwarder: resolves the status line and the socket. */
  const connect = (forwarder: ProxyForwarder, authority: string) =>
    new Promise<{ status: number; socket: net.Socket }>((resolve, reject) => {
      const { port } = new URL(forwarder.proxyServer);
      const req = http.request({ host: '127.0.0.1', port, method: 'CONNECT', path: authority });
      req.on('connect', (res, socket) => resolve({ status: res.statusCode!, socket }));
      req.on('error', reject);
      req.end();
    });

  it('adds the credentials, and explains a 407 instead of passing it on', async () => {
    const forwarder = await ProxyForwarder.start(upstream, () => {}, local);
    try {
      const ok = await get(forwarder, 'http://site.test/through');
      expect(ok.status).toBe(200);
      expect(ok.body).toContain('via-proxy');
      expect(proxy.seen.at(-1)).toMatchObject({ target: 'http://site.test/through', accepted: true });

      const reports: string[] = [];
      const wrong = await ProxyForwarder.start({ ...upstream, password: 'wrong-password' }, (m) => reports.push(m), local);
      try {
        const refused = await get(wrong, 'http://site.test/refused');
        expect(refused.status).toBe(502);
        expect(refused.body).toMatch(/rejected the credentials \(407\)/);
        const tunnel = await connect(wrong, 'site.test:80');
        expect(tunnel.status).toBe(502);
        tunnel.socket.destroy();
        // Reported once, and never with the password in it.
        expect(reports).toHaveLength(1);
        expect(reports.join()).not.toContain('wrong-password');
      } finally {
        await wrong.close();
      }
    } finally {
      await forwarder.close();
    }
  });

  it('goes direct for bypassed hosts and without an upstream', async () => {
    const forwarder = await ProxyForwarder.start({ ...upstream, bypass: ['127.0.0.1'] }, () => {}, local);
    try {
      const before = proxy.seen.length;
      const direct = await get(forwarder, `http://127.0.0.1:${site.port}/bypassed`);
      expect(direct.body).toContain('direct');
      expect(proxy.seen.length).toBe(before);
      forwarder.use(null);
      expect((await get(forwarder, `http://127.0.0.1:${site.port}/no-upstream`)).body).toContain('direct');
      expect(proxy.seen.length).toBe(before);
    } finally {
      await forwarder.close();
    }
  });

  it('tunnels CONNECT through the upstream, and switching the upstream drops open tunnels', async () => {
    const forwarder = await ProxyForwarder.start(upstream, () => {}, local);
    try {
      const tunnel = await connect(forwarder, 'site.test:80');
      expect(tunnel.status).toBe(200);
      expect(proxy.seen.at(-1)).toMatchObject({ method: 'CONNECT', target: 'site.test:80', accepted: true });
      // Speak HTTP inside the tunnel to the site behind the proxy.
      const answer = new Promise<string>((resolve) => {
        let text = '';
        tunnel.socket.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes('</h1>')) resolve(text);
        });
      });
      tunnel.socket.write('GET /tunnel HTTP/1.1\r\nHost: site.test\r\n\r\n');
      expect(await answer).toContain('HTTP/1.1 200');
      const closed = new Promise<void>((resolve) => tunnel.socket.once('close', () => resolve()));
      forwarder.use(null);
      await closed;
    } finally {
      await forwarder.close();
    }
  });

  it.skipIf(!selfSignedCert(['proxy.test']))('speaks TLS to an https proxy, and checks its certificate', async () => {
    // Any TLS server stands in for an https proxy here: the handshake is what is under test.
    const tlsServer = await startSecureSite(selfSignedCert(['proxy.test'])!);
    const forwarder = await ProxyForwarder.start({ proxyId: 'p2', protocol: 'https', host: '127.0.0.1', port: tlsServer.port }, () => {}, local);
    try {
      const refused = await get(forwarder, 'http://site.test/over-tls');
      expect(refused.status).toBe(502);
      expect(refused.body).toMatch(/certificate/i);
    } finally {
      await forwarder.close();
      await tlsServer.close();
    }
  });
});

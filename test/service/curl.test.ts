// HTTP requests from inside a session's network, through the hosted SDK unchanged: `browsers.curl` and
// `browsers.fetch` reach a local site through the session's egress forwarder (the site sees them; with a
// custom proxy, the proxy does), on the session token at `base_url` without the API key. The egress policy
// holds for them as for the browser: under the hosted policy loopback is refused with the egress 403
// unless the browser lists it in network.private_hosts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Kernel, { APIError, BadRequestError, NotFoundError } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { selfSignedCert, startSecureSite, startTestProxy, type TestProxy } from './proxies-fixtures.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A site on 127.0.0.1 that records each request and answers with what it got, or bytes for /binary. */
async function startEchoSite(): Promise<{ port: number; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/binary') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([0, 1, 2, 250, 255]));
        return;
      }
      if (req.url === '/teapot') {
        res.writeHead(418, { 'content-type': 'text/plain', 'x-kind': 'teapot' }).end('short and stout');
        return;
      }
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': 'yes' });
      res.end(JSON.stringify({ method: req.method, url: req.url, body, header: req.headers['x-test'] ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every request the SDK sent, as the service received it from this process. */
function recordingFetch(log: { url: string; authorization: string | null }[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    log.push({ url: request.url, authorization: request.headers.get('authorization') });
    return fetch(input as RequestInfo, init);
  };
}

let site: Awaited<ReturnType<typeof startEchoSite>>;
beforeAll(async () => {
  site = await startEchoSite();
});
afterAll(async () => {
  await site?.close();
});

describe('curl and fetch under the local policy', () => {
  let svc: TestService;
  let kernel: Kernel;
  const sent: { url: string; authorization: string | null }[] = [];
  let id: string;
  let jwt: string;

  beforeAll(async () => {
    svc = await startTestService();
    kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, fetch: recordingFetch(sent) });
    const created = await kernel.browsers.create({ headless: true, timeout_seconds: 300 });
    id = created.session_id;
    jwt = new URL(created.cdp_ws_url).searchParams.get('jwt')!;
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('gives every session response a base_url under which our own routes answer', async () => {
    const got = await kernel.browsers.retrieve(id);
    expect(got.base_url).toBe(`${svc.baseUrl}/browsers/${id}`);
  });

  it('GETs a site through the session, on the session token alone', async () => {
    const from = site.seen.length;
    const sentFrom = sent.length;
    const res = await kernel.browsers.curl(id, { url: `http://127.0.0.1:${site.port}/hello?x=1`, headers: { 'X-Test': 'one' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ method: 'GET', url: '/hello?x=1', body: '', header: 'one' });
    expect(res.headers['Content-Type']).toEqual(['application/json']);
    expect(res.headers['Set-Cookie']).toEqual(['a=1', 'b=2']);
    expect(res.duration_ms).toBeGreaterThanOrEqual(0);
    // The site saw it, with the browser's own user agent by default.
    const seen = site.seen.slice(from);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers['user-agent']).toMatch(/Chrome\//);
    // The SDK routed the call to base_url with the token and without the API key.
    const routed = sent.slice(sentFrom);
    expect(routed).toHaveLength(1);
    expect(routed[0]!.url).toBe(`${svc.baseUrl}/browsers/${id}/curl?jwt=${jwt}`);
    expect(routed[0]!.authorization).toBeNull();
  });

  it('POSTs a body with headers, and answers base64 when asked', async () => {
    const res = await kernel.browsers.curl(id, {
      url: `http://127.0.0.1:${site.port}/submit`,
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-test': 'two' },
      body: 'héllo',
    });
    expect(JSON.parse(res.body)).toEqual({ method: 'POST', url: '/submit', body: 'héllo', header: 'two' });
    const binary = await kernel.browsers.curl(id, { url: `http://127.0.0.1:${site.port}/binary`, response_encoding: 'base64' });
    expect(Buffer.from(binary.body, 'base64')).toEqual(Buffer.from([0, 1, 2, 250, 255]));
    const teapot = await kernel.browsers.curl(id, { url: `http://127.0.0.1:${site.port}/teapot`, method: 'HEAD' });
    expect(teapot).toMatchObject({ status: 418, body: '' });
    expect(teapot.headers['X-Kind']).toEqual(['teapot']);
  });

  it('fetch returns the raw Response, the body and headers forwarded both ways', async () => {
    const from = site.seen.length;
    const res = await kernel.browsers.fetch(id, `http://127.0.0.1:${site.port}/raw?q=2`, {
      method: 'PUT',
      headers: { 'x-test': 'three', 'content-type': 'text/plain' },
      body: 'payload',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-echo')).toBe('yes');
    expect(await res.json()).toEqual({ method: 'PUT', url: '/raw?q=2', body: 'payload', header: 'three' });
    const seen = site.seen.slice(from);
    expect(seen).toHaveLength(1);
    // Neither the API key nor the SDK's own headers reach the destination.
    expect(seen[0]!.headers.authorization).toBeUndefined();
    expect(Object.keys(seen[0]!.headers).filter((h) => h.startsWith('x-stainless'))).toEqual([]);
    // The SDK turns a status that is not 2xx into its APIError, with the destination's status and body.
    const teapot = await kernel.browsers.fetch(id, `http://127.0.0.1:${site.port}/teapot`).catch((e: unknown) => e);
    expect(teapot).toBeInstanceOf(APIError);
    expect((teapot as APIError).status).toBe(418);
    expect((teapot as APIError).message).toContain('short and stout');
    const direct = await fetch(`${svc.baseUrl}/browsers/${id}/curl/raw?url=${encodeURIComponent(`http://127.0.0.1:${site.port}/teapot`)}&jwt=${jwt}`);
    expect(direct.status).toBe(418);
    expect(direct.headers.get('x-kind')).toBe('teapot');
    expect(await direct.text()).toBe('short and stout');
  });

  it('takes the token in place of the key on curl, curl/raw and telemetry/stream only, for its own session', async () => {
    const target = encodeURIComponent(`http://127.0.0.1:${site.port}/t`);
    const post = (path: string, token: string) =>
      fetch(`${svc.baseUrl}/browsers/${id}/${path}?jwt=${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${site.port}/t` }) });
    expect((await post('curl', jwt)).status).toBe(200);
    const raw = await fetch(`${svc.baseUrl}/browsers/${id}/curl/raw?url=${target}&jwt=${jwt}`);
    expect(raw.status).toBe(200);
    await raw.body?.cancel();
    const stream = await fetch(`${svc.baseUrl}/browsers/${id}/telemetry/stream?jwt=${jwt}`, { signal: AbortSignal.timeout(30_000) });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();

    const other = await kernel.browsers.create({ headless: true });
    try {
      const otherJwt = new URL(other.cdp_ws_url).searchParams.get('jwt')!;
      const wrong = await post('curl', otherJwt);
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { code: string }).code).toBe('unauthorized');
      expect((await post('curl', 'not-a-token')).status).toBe(401);
      expect((await fetch(`${svc.baseUrl}/browsers/${id}/curl/raw?url=${target}&jwt=${otherJwt}`)).status).toBe(401);
    } finally {
      await kernel.browsers.deleteByID(other.session_id);
    }
    // Anywhere else the token is no credential.
    expect((await fetch(`${svc.baseUrl}/browsers/${id}?jwt=${jwt}`)).status).toBe(401);
    expect((await fetch(`${svc.baseUrl}/browsers/${id}/telemetry/events?jwt=${jwt}`)).status).toBe(401);
  });

  it("counts a call on the session's token as an API call of the session (telemetry's control events)", async () => {
    const watched = await kernel.browsers.create({ headless: true, telemetry: { enabled: true } } as never);
    await kernel.browsers.curl(watched.session_id, { url: `http://127.0.0.1:${site.port}/watched` });
    const calls = await eventually(async () => {
      const res = await svc.call('GET', `/browsers/${watched.session_id}/telemetry/events?category=control&since=1h`);
      const list = (res.body as { event: { data: { operation_id: string; status: number } } }[]).map((e) => [e.event.data.operation_id, e.event.data.status]);
      return list.some(([op]) => op === 'POST /browsers/{id}/curl') ? list : undefined;
    }, 30_000);
    expect(calls).toContainEqual(['POST /browsers/{id}/curl', 200]);
    await kernel.browsers.deleteByID(watched.session_id);
  });

  it('answers 400 naming the field for bad input', async () => {
    const bad = async (body: object, field: string) => {
      const err = await kernel.browsers.curl(id, body as never).catch((e: unknown) => e);
      expect(err, field).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message, field).toContain(field);
    };
    await bad({}, 'body.url');
    await bad({ url: 'not a url' }, 'body.url');
    await bad({ url: 'ftp://127.0.0.1/' }, 'body.url');
    await bad({ url: `http://127.0.0.1:${site.port}/`, method: 'BREW' }, 'body.method');
    await bad({ url: `http://127.0.0.1:${site.port}/`, headers: { 'bad header': 'x' } }, 'body.headers.bad header');
    await bad({ url: `http://127.0.0.1:${site.port}/`, timeout_ms: 0 }, 'body.timeout_ms');
    await bad({ url: `http://127.0.0.1:${site.port}/`, response_encoding: 'hex' }, 'body.response_encoding');
    const raw = await fetch(`${svc.baseUrl}/browsers/${id}/curl/raw?url=mailto:x@y&jwt=${jwt}`);
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { message: string }).message).toContain('querystring.url');
  });

  it('answers 502 with a message when the destination cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const res = await fetch(`${svc.baseUrl}/browsers/${id}/curl?jwt=${jwt}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/` }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('bad_gateway');
    expect(body.message).toContain(`127.0.0.1:${port}`);
  });

  it('speaks TLS through the tunnel, and holds the destination to its certificate as the browser would', async () => {
    const tls = selfSignedCert(['localhost']);
    if (!tls) return; // no openssl here
    const secure = await startSecureSite(tls);
    try {
      const res = await fetch(`${svc.baseUrl}/browsers/${id}/curl?jwt=${jwt}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://127.0.0.1:${secure.port}/` }),
      });
      expect(res.status).toBe(502);
      expect(((await res.json()) as { message: string }).message).toMatch(/TLS with 127\.0\.0\.1:\d+ failed: .*certificate/);
    } finally {
      await secure.close();
    }
  });

  it('answers 404 for a deleted session', async () => {
    const doomed = await kernel.browsers.create({ headless: true });
    await kernel.browsers.deleteByID(doomed.session_id);
    const doomedJwt = new URL(doomed.cdp_ws_url).searchParams.get('jwt')!;
    const res = await fetch(`${svc.baseUrl}/browsers/${doomed.session_id}/curl?jwt=${doomedJwt}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${site.port}/` }),
    });
    expect(res.status).toBe(404);
    await expect(kernel.browsers.curl(doomed.session_id, { url: `http://127.0.0.1:${site.port}/` })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('curl under the hosted policy', () => {
  let svc: TestService;
  let kernel: Kernel;

  beforeAll(async () => {
    svc = await startTestService({ networkPolicy: 'hosted' });
    kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("refuses loopback with the egress 403 unless the browser lists it in network.private_hosts", async () => {
    const closedOff = await kernel.browsers.create({ headless: true });
    const from = site.seen.length;
    const refused = await kernel.browsers.curl(closedOff.session_id, { url: `http://127.0.0.1:${site.port}/secret` });
    expect(refused.status).toBe(403);
    expect(refused.headers['X-Bcs-Egress-Refused']).toEqual(['private_address']);
    expect(refused.body).toContain('network.private_hosts');
    // Over https the refusal comes at the tunnel, and is answered the same way.
    const tunnel = await kernel.browsers.curl(closedOff.session_id, { url: `https://127.0.0.1:${site.port}/secret` });
    expect(tunnel.status).toBe(403);
    expect(tunnel.headers['X-Bcs-Egress-Refused']).toEqual(['private_address']);
    const viaSdk = await kernel.browsers.fetch(closedOff.session_id, `http://127.0.0.1:${site.port}/secret`).catch((e: unknown) => e);
    expect((viaSdk as APIError).status).toBe(403);
    expect((viaSdk as APIError).headers?.get('x-bcs-egress-refused')).toBe('private_address');
    expect(site.seen.slice(from)).toEqual([]);

    const open = await kernel.browsers.create({ headless: true, network: { private_hosts: ['127.0.0.1'] } } as never);
    const allowed = await kernel.browsers.curl(open.session_id, { url: `http://127.0.0.1:${site.port}/listed` });
    expect(allowed.status).toBe(200);
    expect(site.seen.slice(from).map((s) => s.url)).toEqual(['/listed']);
    // The service's own port is never a destination, listed or not.
    const own = await kernel.browsers.curl(open.session_id, { url: `${svc.baseUrl}/browsers` });
    expect(own.status).toBe(403);
    expect(own.headers['X-Bcs-Egress-Refused']).toEqual(['service_port']);
  });
});

describe('curl from a session that shares the host network', () => {
  let svc: TestService;

  beforeAll(async () => {
    // The egress proxy then listens on a loopback port instead of the namespace's unix socket.
    svc = await startTestService({ sessionNetworks: false });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('reaches the site through the egress proxy all the same', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const session = await kernel.browsers.create({ headless: true });
    const res = await kernel.browsers.curl(session.session_id, { url: `http://127.0.0.1:${site.port}/shared`, headers: { 'x-test': 'shared' } });
    expect(JSON.parse(res.body)).toMatchObject({ url: '/shared', header: 'shared' });
    const raw = await kernel.browsers.fetch(session.session_id, `http://127.0.0.1:${site.port}/shared-raw`);
    expect(((await raw.json()) as { url: string }).url).toBe('/shared-raw');
  });
});

describe('curl through a session with a custom proxy', () => {
  let svc: TestService;
  let kernel: Kernel;
  let proxy: TestProxy;

  beforeAll(async () => {
    proxy = await startTestProxy({ username: 'u', password: 'p-for-curl', hosts: { 'site.test': site.port } });
    svc = await startTestService({ proxyCheckUrl: 'http://site.test/health' });
    kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  });
  afterAll(async () => {
    await svc?.close();
    await proxy?.close();
  });

  it('leaves through the proxy, with its credentials', async () => {
    const created = await kernel.proxies.create({ type: 'custom', name: 'curl-proxy', protocol: 'http', config: { host: '127.0.0.1', port: proxy.port, username: 'u', password: 'p-for-curl' } });
    const session = await kernel.browsers.create({ headless: true, proxy_id: created.id! });
    const from = proxy.seen.length;
    const res = await kernel.browsers.curl(session.session_id, { url: 'http://site.test/via-proxy', headers: { 'x-test': 'proxied' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ url: '/via-proxy', header: 'proxied' });
    expect(proxy.accepted().slice(0).filter((s) => s.target === 'http://site.test/via-proxy')).toHaveLength(1);
    expect(proxy.seen.slice(from).filter((s) => s.target.includes('site.test')).every((s) => s.accepted)).toBe(true);
    expect(site.seen.at(-1)!.headers['x-via-test-proxy']).toBe('1');
  });
});

// The DevTools protocol descriptor (`/json/protocol`). A session on Chromium's headless shell gets the
// descriptor of the full Chromium of its version, and the shell is never asked: the shell of
// @sparticuz/chromium dies when asked, taking the session with it. Where no such Chromium is here, the
// answer is a 404 that says so, and the browser goes on. At the root the descriptor is served without a
// key (nothing else is), so chrome-remote-interface connects with nothing but a session's cdp_ws_url.
import CDP from 'chrome-remote-interface';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let session: { session_id: string; cdp_ws_url: string };

beforeAll(async () => {
  svc = await startTestService();
  session = (await svc.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } })).body;
});
afterAll(async () => {
  await svc?.close();
});

const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });
const domainsOf = (descriptor: { domains: { domain: string }[] }) => descriptor.domains.map((d) => d.domain);

describe('/json/protocol', () => {
  it("serves a headless-shell session the descriptor of the full Chromium of its version", async () => {
    expect(svc.headlessShell, 'this host has a headless shell beside Chromium').toBeDefined();
    const res = await get(svc.baseUrl, `/browsers/${session.session_id}/cdp/json/protocol`, { authorization: `Bearer ${svc.apiKey}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const descriptor = (await res.json()) as { version: { major: string }; domains: { domain: string }[] };
    expect(descriptor.version.major).toBe('1');
    expect(domainsOf(descriptor)).toEqual(expect.arrayContaining(['Runtime', 'Page', 'Target', 'Network']));
  });

  it('serves the descriptor at the root without a key, and nothing else there', async () => {
    const credentials: Record<string, string>[] = [{}, { authorization: 'Bearer not-a-key' }, { authorization: `Bearer ${svc.apiKey}` }];
    const answers = await Promise.all(credentials.map((h) => get(svc.baseUrl, '/json/protocol', h)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const texts = await Promise.all(answers.map((a) => a.text()));
    expect(new Set(texts).size).toBe(1);
    expect(domainsOf(JSON.parse(texts[0]!))).toContain('Runtime');
    for (const path of ['/json/version', '/json/list', '/json', '/json/protocol/x', '/devtools/inspector.html']) {
      const res = await get(svc.baseUrl, path);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { code: string }).code, path).toBe('unauthorized');
    }
  });

  it('lets chrome-remote-interface connect with nothing but the session’s cdp_ws_url', async () => {
    const client = await CDP({ target: session.cdp_ws_url });
    try {
      expect(await evaluateInPage(client, '6 * 7')).toBe(42);
    } finally {
      await client.close();
    }
  });
});

/** Evaluates `expression` in the browser's first page, over a client connected to the browser target. */
async function evaluateInPage(client: Awaited<ReturnType<typeof CDP>>, expression: string): Promise<unknown> {
  const { targetInfos } = await client.send('Target.getTargets');
  const page = targetInfos.find((t: { type: string }) => t.type === 'page')!;
  const { sessionId } = await client.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  // The flat session is the third argument, which the client's types leave out.
  const send = client.send as unknown as (method: string, params: object, sessionId: string) => Promise<{ result: { value: unknown } }>;
  const { result } = await send.call(client, 'Runtime.evaluate', { expression }, sessionId);
  return result.value;
}

/** The headless shell @sparticuz/chromium unpacks (Chromium 147 here), when the package can give it. */
async function packagedShell(): Promise<string | undefined> {
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    return await chromium.executablePath();
  } catch {
    return undefined;
  }
}
const shell = await packagedShell();

describe.skipIf(!shell)('a headless shell with no full Chromium of its version here', () => {
  it('answers a 404 that says so, never asks the shell, and the browser goes on', async () => {
    const other = await startTestService({ headlessShell: shell });
    try {
      const b = (await other.call('POST', '/browsers', { body: { headless: true, timeout_seconds: 600 } })).body;
      const key = { authorization: `Bearer ${other.apiKey}` };
      const res = await get(other.baseUrl, `/browsers/${b.session_id}/cdp/json/protocol`, key);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { code: string; message: string };
      expect(body.code).toBe('protocol_unavailable');
      expect(body.message).toMatch(/not available with this browser.*headless shell/);
      // Still there, and still driven.
      expect((await get(other.baseUrl, `/browsers/${b.session_id}/cdp/json/version`, key)).status).toBe(200);
      const client = await CDP({ target: b.cdp_ws_url, local: true });
      try {
        expect(await evaluateInPage(client, '1 + 1')).toBe(2);
      } finally {
        await client.close();
      }
      expect((await other.call('GET', `/browsers/${b.session_id}`)).body.deleted_at).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

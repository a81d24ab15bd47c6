// chrome_policy through the hosted SDK, unchanged: a browser's Chrome Enterprise policies are stored, echoed and
// really applied by its Chromium (JavaScript off, a URL blocked), in a browser and in a pool's browsers; the
// policies the service manages itself are 400s naming the key; a host that cannot apply them says why.
import Kernel, { BadRequestError } from '@onkernel/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const exe = await findChromium(process.env.BCS_CHROMIUM);

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;

beforeAll(async () => {
  svc = await startTestService({ standby: 1 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  // The page writes into itself from a script: with JavaScript off it keeps its first text.
  site = createServer((req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>t</title><p id="out">static</p><script>document.getElementById('out').textContent = 'scripted'</script>${req.url}`),
  );
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await svc?.close();
  site?.close();
});

/** What the page shows once loaded at `path`, or the navigation's error. */
async function visit(cdpUrl: string, path: string): Promise<string> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    try {
      await page.goto(`${origin}${path}`);
    } catch (err) {
      return `error: ${(err as Error).message.split('\n')[0]}`;
    }
    return (await page.textContent('#out')) ?? '';
  } finally {
    await browser.close();
  }
}

const policy = { DefaultJavaScriptSetting: 2, URLBlocklist: ['127.0.0.1/blocked'] };

describe('chrome_policy', () => {
  it.runIf(!exe.headlessShell)('is applied by the browser, echoed on create and retrieve, and kept out of the standby', async () => {
    await eventually(() => (svc.standby.available === 1 ? true : undefined));
    const handoffs = svc.standby.handoffs;
    const created = await kernel.browsers.create({ headless: true, timeout_seconds: 120, chrome_policy: policy });
    expect(created.chrome_policy).toEqual(policy);
    // The standby's browser runs without policies: this create launched its own.
    expect(svc.standby.handoffs).toBe(handoffs);
    expect((await kernel.browsers.retrieve(created.session_id)).chrome_policy).toEqual(policy);

    expect(await visit(created.cdp_ws_url, '/page')).toBe('static');
    expect(await visit(created.cdp_ws_url, '/blocked')).toMatch(/ERR_BLOCKED_BY_ADMINISTRATOR/);
    // A restart of its Chromium (a profile loaded into it) keeps the policies.
    await kernel.profiles.create({ name: 'policy-profile' });
    await kernel.browsers.update(created.session_id, { profile: { name: 'policy-profile' } });
    expect(await visit(created.cdp_ws_url, '/page')).toBe('static');

    // The same page in a browser without policies: its script runs, nothing is blocked.
    const plain = await kernel.browsers.create({ headless: true, timeout_seconds: 120 });
    expect(plain.chrome_policy).toBeUndefined();
    expect(await visit(plain.cdp_ws_url, '/page')).toBe('scripted');
    expect(await visit(plain.cdp_ws_url, '/blocked')).toBe('scripted');
    await kernel.browsers.deleteByID(created.session_id);
    await kernel.browsers.deleteByID(plain.session_id);
  });

  it('refuses the policies the service manages, naming the key, with the Error shape', async () => {
    for (const key of ['ExtensionInstallForcelist', 'ProxyMode', 'RemoteDebuggingAllowed', 'DeveloperToolsAvailability']) {
      const res = await svc.call('POST', '/browsers', { body: { chrome_policy: { [key]: 1 } } });
      expect(res.status, key).toBe(400);
      expect(res.body).toMatchObject({ code: 'chrome_policy_blocked', message: expect.stringContaining(`body.chrome_policy.${key}`) });
      expect(res.body.details[0]).toMatchObject({ code: 'invalid_input', field: `body.chrome_policy.${key}` });
    }
    const err = await kernel.browsers.create({ chrome_policy: { ProxySettings: { ProxyMode: 'direct' } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).error).toMatchObject({ code: 'chrome_policy_blocked' });
    // Not a policy name at all, and not an object.
    expect((await svc.call('POST', '/browsers', { body: { chrome_policy: { 'not a name': 1 } } })).status).toBe(400);
    expect((await svc.call('POST', '/browsers', { body: { chrome_policy: [1] } })).status).toBe(400);
  });

  it.runIf(!exe.headlessShell)("gives a pool's browsers its policies; an update replaces them, {} clears them; 5 MiB at most", async () => {
    const pool = await kernel.browserPools.create({ name: 'policy-pool', size: 1, headless: true, chrome_policy: policy });
    expect(pool.browser_pool_config.chrome_policy).toEqual(policy);
    const leased = await kernel.browserPools.acquire('policy-pool', { acquire_timeout_seconds: 60 });
    expect(leased.chrome_policy).toEqual(policy);
    expect(await visit(leased.cdp_ws_url, '/page')).toBe('static');
    await kernel.browserPools.release('policy-pool', { session_id: leased.session_id, reuse: false });

    const blocked = await svc.call('PATCH', '/browser_pools/policy-pool', { body: { chrome_policy: { ProxyServer: 'x' } } });
    expect(blocked.status).toBe(400);
    expect(blocked.body.details[0].field).toBe('body.chrome_policy.ProxyServer');
    // Over 5 MiB as JSON (the body itself is within the route's limit): refused with the size named.
    const big = await svc.call('PATCH', '/browser_pools/policy-pool', { body: { chrome_policy: { URLBlocklist: ['x'.repeat(5.5 * 1024 * 1024)] } } });
    expect(big.status).toBe(400);
    expect(big.body.message).toMatch(/5 MiB/);

    // Full again (the refill launched with the policies), then the idle browser is discarded with the update.
    await eventually(async () => ((await kernel.browserPools.retrieve('policy-pool')).available_count === 1 ? true : undefined));
    const cleared = await kernel.browserPools.update('policy-pool', { chrome_policy: {}, discard_all_idle: true });
    expect(cleared.browser_pool_config.chrome_policy).toBeUndefined();
    const again = await kernel.browserPools.acquire('policy-pool', { acquire_timeout_seconds: 60 });
    expect(again.chrome_policy).toBeUndefined();
    expect(await visit(again.cdp_ws_url, '/page')).toBe('scripted');
    await kernel.browserPools.delete('policy-pool', { force: true });
  });
});

describe('a host that cannot apply policies', () => {
  it('refuses chrome_policy with the reason, for browsers and pools, rather than ignore it', async () => {
    const off = await startTestService({ sandbox: 'off' });
    try {
      const res = await off.call('POST', '/browsers', { body: { chrome_policy: { DefaultJavaScriptSetting: 2 } } });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('chrome_policy_unavailable');
      expect(res.body.message).toMatch(exe.headlessShell ? /headless shell/ : /sandbox is off/);
      const pool = await off.call('POST', '/browser_pools', { body: { size: 1, chrome_policy: { DefaultJavaScriptSetting: 2 } } });
      expect(pool.status).toBe(400);
      expect(pool.body.code).toBe('chrome_policy_unavailable');
      // An empty object asks for nothing, and a blocked key is refused as such first.
      expect((await off.call('POST', '/browsers', { body: { chrome_policy: { ProxyMode: 'direct' } } })).body.code).toBe('chrome_policy_blocked');
      expect(off.sessions.size).toBe(0);
    } finally {
      await off.close();
    }
  });
});

// Site configs (our extension): CRUD by id or domain, lookup of the most specific config for a URL, and
// their settings applied as defaults to browsers created for the site, explicit fields winning.
import Kernel from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;

beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  await svc?.close();
});

describe('site configs', () => {
  it('are created, found by id or domain, updated (null removes), listed and deleted; a domain is one config', async () => {
    const created = await svc.call('POST', '/site_configs', { body: { domain: 'Shop.Example.test', stealth: true, notes: 'bot wall on checkout' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ domain: 'shop.example.test', stealth: true, notes: 'bot wall on checkout' });
    expect((await svc.call('GET', '/site_configs/shop.example.test')).body.id).toBe(created.body.id);
    expect((await svc.call('POST', '/site_configs', { body: { domain: 'shop.example.test' } })).status).toBe(409);
    const updated = await svc.call('PATCH', `/site_configs/${created.body.id}`, { body: { notes: null, headless: false } });
    expect(updated.body).toMatchObject({ stealth: true, headless: false });
    expect(updated.body.notes).toBeUndefined();
    const bad = await svc.call('POST', '/site_configs', { body: { domain: 'not a domain' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('body.domain');
    const missingProxy = await svc.call('POST', '/site_configs', { body: { domain: 'p.test', proxy_id: 'nope' } });
    expect(missingProxy.status).toBe(400);
    expect(missingProxy.body.details[0].field).toBe('body.proxy_id');
    const list = await svc.call('GET', '/site_configs?query=SHOP');
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    expect(list.headers.get('x-has-more')).toBe('false');
    expect((await svc.call('DELETE', '/site_configs/shop.example.test')).status).toBe(204);
    expect((await svc.call('GET', `/site_configs/${created.body.id}`)).status).toBe(404);
  });

  it('looks up the most specific config: the exact domain, then the longest covering one, `*.` for subdomains only', async () => {
    const parent = (await svc.call('POST', '/site_configs', { body: { domain: 'example.org', stealth: false } })).body;
    const subs = (await svc.call('POST', '/site_configs', { body: { domain: '*.example.org', stealth: true } })).body;
    const exact = (await svc.call('POST', '/site_configs', { body: { domain: 'login.example.org', headless: true } })).body;
    const lookup = async (q: string) => (await svc.call('GET', `/site_configs/lookup?${q}`)).body.id;
    expect(await lookup('domain=example.org')).toBe(parent.id);
    expect(await lookup(`url=${encodeURIComponent('https://www.example.org/cart?x=1')}`)).toBe(subs.id);
    expect(await lookup('domain=LOGIN.example.org')).toBe(exact.id);
    expect((await svc.call('GET', '/site_configs/lookup?domain=example.com')).status).toBe(404);
    expect((await svc.call('GET', '/site_configs/lookup')).status).toBe(400);
    expect((await svc.call('GET', '/site_configs/lookup?url=nope')).status).toBe(400);
  });

  it('give browsers created for the site their settings where the body says nothing, and say so', async () => {
    const config = (await svc.call('POST', '/site_configs', { body: { domain: '127.0.0.1', stealth: true } })).body;
    const b = await kernel.browsers.create({ start_url: 'http://127.0.0.1:9/' });
    try {
      expect(b.stealth).toBe(true);
      expect((b as unknown as { site_config_id: string }).site_config_id).toBe(config.id);
      expect((await svc.call('GET', `/browsers/${b.session_id}`)).body.site_config_id).toBe(config.id);
    } finally {
      await kernel.browsers.deleteByID(b.session_id);
    }
    const explicit = await kernel.browsers.create({ start_url: 'http://127.0.0.1:9/', stealth: false });
    try {
      expect(explicit.stealth).toBe(false);
    } finally {
      await kernel.browsers.deleteByID(explicit.session_id);
    }
    const unrelated = await kernel.browsers.create({});
    expect((unrelated as unknown as { site_config_id?: string }).site_config_id).toBeUndefined();
    await kernel.browsers.deleteByID(unrelated.session_id);

    // Auth connections for the domain say which config their browsers take.
    const connection = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'site-config-login' });
    expect((connection as unknown as { site_config_id: string }).site_config_id).toBe(config.id);
  });

  it('keep a proxy they recommend from being deleted', async () => {
    const proxy = await kernel.proxies.create({ type: 'custom', name: 'site-proxy', config: { host: '127.0.0.1', port: 9 } });
    const config = (await svc.call('POST', '/site_configs', { body: { domain: 'proxied.test', proxy_id: proxy.id } })).body;
    expect(config.proxy_id).toBe(proxy.id);
    expect((await svc.call('DELETE', `/proxies/${proxy.id}`)).body.code).toBe('resource_in_use');
    await svc.call('PATCH', `/site_configs/${config.id}`, { body: { proxy_id: null } });
    expect((await svc.call('DELETE', `/proxies/${proxy.id}`)).status).toBe(204);
  });
});

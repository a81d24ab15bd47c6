// /proxies through the hosted SDK and raw HTTP: create per type, list/filter/page, rename, soft delete,
// validation (400s naming the field), the browser `proxy` selector's rules, and the password's secrecy:
// never in a response, an error or the database file in plaintext.
import Kernel, { BadRequestError, NotFoundError } from '@onkernel/sdk';
import { openServiceStore, storedBytes } from '../helpers/store-access.js';
import { sql } from '../../src/service/store/sql.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectListedAsAlone, startTestService, type TestService } from '../helpers/service.js';

const PASSWORD = 'S3cret-Proxy-Passw0rd!';

let svc: TestService;
let kernel: Kernel;
beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

/** The fields of the invalid_input details of a 400. */
const fields = (reply: { body: { details?: { field?: string }[] } }) => (reply.body.details ?? []).map((d) => d.field);

describe('proxies', () => {
  it('creates each type, shows the password only as has_password, and never stores it in plaintext', async () => {
    const custom = await kernel.proxies.create({
      type: 'custom',
      name: ' office ',
      protocol: 'http',
      bypass_hosts: ['intranet.example', '*.corp.example', '10.0.0.0/8'],
      config: { host: 'proxy.example', port: 3128, username: 'alice', password: PASSWORD },
    });
    expect(custom).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{24}$/),
      type: 'custom',
      name: 'office',
      protocol: 'http',
      bypass_hosts: ['intranet.example', '*.corp.example', '10.0.0.0/8'],
      config: { host: 'proxy.example', port: 3128, username: 'alice', has_password: true },
    });
    const noPassword = await kernel.proxies.create({ type: 'custom', config: { host: '::1', port: 8080 } });
    // The hosted default protocol for custom proxies is https.
    expect(noPassword).toMatchObject({ protocol: 'https', config: { host: '::1', port: 8080, has_password: false } });

    const dc = await kernel.proxies.create({ type: 'datacenter', name: 'dc' });
    expect(dc).toMatchObject({ type: 'datacenter', config: { country: 'US' }, status: 'unavailable' });
    expect((dc as { status_detail?: string }).status_detail).toMatch(/only custom proxies route locally/i);
    const resi = await kernel.proxies.create({ type: 'residential', config: { country: 'de', city: 'berlin', zip: '10115' } });
    expect(resi.config).toEqual({ country: 'DE', city: 'berlin', zip: '10115' });
    const mobile = await kernel.proxies.create({ type: 'mobile', config: { country: 'US', state: 'ny' } });
    expect(mobile.config).toEqual({ country: 'US', state: 'NY' });
    const isp = await kernel.proxies.create({ type: 'isp', config: { country: 'gb' } });
    expect(isp.config).toEqual({ country: 'GB' });

    // Nowhere in what the API answers.
    const all = await svc.call('GET', '/proxies?limit=100');
    expect(JSON.stringify(all.body)).not.toContain(PASSWORD);
    expect(JSON.stringify((await svc.call('GET', `/proxies/${custom.id}`)).body)).not.toContain(PASSWORD);

    // Nor in the database: not in the proxies table, not anywhere in what it stores (SQLite: any page of
    // the file or its WAL).
    const db = await openServiceStore(svc);
    const stored = (await db.get(sql`SELECT * FROM proxies WHERE id = ${custom.id}`)) as Record<string, unknown>;
    await db.close();
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    expect(stored.password_sealed).toMatch(/^v1\./);
    expect((await storedBytes(svc)).includes(Buffer.from(PASSWORD))).toBe(false);
    // The key lives beside the database, readable by the owner only.
    expect(statSync(join(svc.dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(svc.dataDir, 'secrets.key')).size).toBe(32);
  });

  it('lists with paging headers, filters by exact name and by query, renames and soft-deletes', async () => {
    const a = await kernel.proxies.create({ type: 'custom', name: 'Filter-Me', config: { host: 'alpha.proxy.example', port: 1 } });
    const b = await kernel.proxies.create({ type: 'custom', name: 'filter-me', config: { host: 'beta.proxy.example', port: 2 } });

    const byName = await svc.call('GET', '/proxies?name=FILTER-ME');
    expect(byName.body.map((p: { id: string }) => p.id)).toEqual([a.id, b.id]);
    const byHost = await svc.call('GET', '/proxies?query=BETA.proxy');
    expect(byHost.body.map((p: { id: string }) => p.id)).toEqual([b.id]);
    expect((await svc.call('GET', `/proxies?query=${a.id}`)).body.map((p: { id: string }) => p.id)).toEqual([a.id]);

    const page = await svc.call('GET', '/proxies?limit=1&name=filter-me');
    expect(page.headers.get('x-has-more')).toBe('true');
    expect(page.headers.get('x-next-offset')).toBe('1');
    const ids: string[] = [];
    for await (const p of kernel.proxies.list({ name: 'filter-me', limit: 1 })) ids.push(p.id!);
    expect(ids).toEqual([a.id, b.id]);

    const renamed = await kernel.proxies.update(a.id!, { name: '  renamed  ' });
    expect(renamed.name).toBe('renamed');
    expect((await kernel.proxies.retrieve(a.id!)).name).toBe('renamed');
    expect((await svc.call('PATCH', `/proxies/${a.id}`, { body: { name: '   ' } })).status).toBe(400);

    await kernel.proxies.delete(b.id!);
    await expect(kernel.proxies.retrieve(b.id!)).rejects.toBeInstanceOf(NotFoundError);
    await expect(kernel.proxies.delete(b.id!)).rejects.toBeInstanceOf(NotFoundError);
    expect((await svc.call('GET', '/proxies?name=filter-me')).body).toEqual([]);
    await expect(kernel.proxies.check('missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses bad bodies with 400s that name the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.type'],
      [{ type: 'satellite' }, 'body.type'],
      [{ type: 'custom' }, 'body.config'],
      [{ type: 'custom', config: { host: 'h.example' } }, 'body.config.port'],
      [{ type: 'custom', config: { host: 'h.example', port: 70000 } }, 'body.config.port'],
      [{ type: 'custom', config: { host: 'user@h.example', port: 1 } }, 'body.config.host'],
      [{ type: 'custom', config: { host: 'h.example', port: 1, password: 'abc' } }, 'body.config.password'],
      [{ type: 'custom', config: { host: 'h.example', port: 1, username: 'a:b' } }, 'body.config.username'],
      [{ type: 'datacenter', config: { host: 'h.example' } }, 'body.config.host'],
      [{ type: 'datacenter', config: { country: 'USA' } }, 'body.config.country'],
      [{ type: 'residential', config: { city: 'berlin' } }, 'body.config'],
      [{ type: 'custom', protocol: 'socks5', config: { host: 'h', port: 1 } }, 'body.protocol'],
      [{ type: 'custom', bypass_hosts: ['a b'], config: { host: 'h', port: 1 } }, 'body.bypass_hosts.0'],
      [{ type: 'isp', name: '' }, 'body.name'],
    ];
    for (const [body, field] of cases) {
      const reply = await svc.call('POST', '/proxies', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code).toBe('bad_request');
      expect(fields(reply), JSON.stringify(body)).toContain(field);
    }
    // A too-short password is named, never echoed.
    const short = await svc.call('POST', '/proxies', { body: { type: 'custom', config: { host: 'h', port: 1, password: 'abcd' } } });
    expect(JSON.stringify(short.body)).not.toContain('abcd');
    expect((await svc.call('POST', '/proxies/x/check', { body: { url: 'ftp://example.com' } })).status).toBe(400);
    expect(fields(await svc.call('PATCH', '/proxies/x', { body: {} }))).toContain('body.name');
    await expect(kernel.proxies.create({ type: 'custom' })).rejects.toBeInstanceOf(BadRequestError);
  });

  it('a browser takes exactly one of mode, id and name, and only custom proxies', async () => {
    const custom = await kernel.proxies.create({ type: 'custom', name: 'twin', config: { host: '127.0.0.1', port: 9 } });
    await kernel.proxies.create({ type: 'custom', name: 'TWIN', config: { host: '127.0.0.1', port: 9 } });
    const dc = await kernel.proxies.create({ type: 'datacenter', name: 'hosted-only' });

    const refuse = async (body: unknown, field: string, code = 'bad_request') => {
      const reply = await svc.call('POST', '/browsers', { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.code, JSON.stringify(body)).toBe(code);
      expect(fields(reply), JSON.stringify(body)).toContain(field);
      return reply;
    };
    await refuse({ proxy: {} }, 'body.proxy');
    await refuse({ proxy: { id: custom.id, name: 'twin' } }, 'body.proxy');
    await refuse({ proxy: { mode: 'direct', id: custom.id } }, 'body.proxy');
    await refuse({ proxy: { mode: 'tunnel' } }, 'body.proxy.mode');
    await refuse({ proxy: { id: custom.id }, proxy_id: custom.id }, 'body.proxy');
    await refuse({ proxy: { id: 'missing' } }, 'body.proxy.id');
    await refuse({ proxy_id: 'missing' }, 'body.proxy_id');
    const ambiguous = await refuse({ proxy: { name: 'twin' } }, 'body.proxy.name');
    expect(ambiguous.body.message).toMatch(/several proxies/);
    const hostedOnly = await refuse({ proxy: { name: 'hosted-only' } }, 'body.proxy.name', 'proxy_unavailable');
    expect(hostedOnly.body.message).toMatch(/only custom proxies route locally/i);
    await refuse({ proxy_id: dc.id }, 'body.proxy_id', 'proxy_unavailable');
    await refuse({ disable_default_proxy: 'yes' }, 'body.disable_default_proxy');
    // Pools take proxy_id with the same rules.
    const pool = await svc.call('POST', '/browser_pools', { body: { size: 1, proxy_id: dc.id } });
    expect(pool.status).toBe(400);
    expect(pool.body.code).toBe('proxy_unavailable');

    // Modes need no proxy; the deprecated fields are accepted.
    const direct = await svc.call('POST', '/browsers', { body: { proxy: { mode: 'direct' }, disable_default_proxy: true } });
    expect(direct.status).toBe(200);
    expect(direct.body.proxy).toEqual({ mode: 'direct' });
    expect(direct.body.proxy_id).toBeUndefined();
    const plain = await kernel.browsers.create({ proxy_id: '' });
    expect(plain.proxy_id).toBeUndefined();
    await expectListedAsAlone(svc, [direct.body.session_id, plain.session_id]);
    await kernel.browsers.deleteByID(direct.body.session_id);
    await kernel.browsers.deleteByID(plain.session_id);
  });

  it('keeps a proxy usable after a restart: the sealed password opens with the key in the data dir', async () => {
    const dataDir = svc.dataDir;
    const created = await kernel.proxies.create({ type: 'custom', name: 'persisted', config: { host: '127.0.0.1', port: 9, password: PASSWORD } });
    const restarted = await startTestService({ standby: 0, dataDir, apiKey: svc.apiKey });
    try {
      const k2 = new Kernel({ apiKey: restarted.apiKey, baseURL: restarted.baseUrl, maxRetries: 0 });
      expect((await k2.proxies.retrieve(created.id!)).config).toMatchObject({ has_password: true });
      // Opening the password is what a session launch does: it must work across the restart.
      const session = await k2.browsers.create({ proxy_id: created.id });
      expect(session.proxy_id).toBe(created.id);
      await k2.browsers.deleteByID(session.session_id);
    } finally {
      await restarted.close();
    }
  });
});

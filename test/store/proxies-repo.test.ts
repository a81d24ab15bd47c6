// ProxiesRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { ProxiesRepo, type ProxyRow } from '../../src/service/store/proxies-repo.js';

const row = (id: string, over: Partial<ProxyRow> = {}): ProxyRow => ({
  id,
  project_id: null,
  name: null,
  type: 'custom',
  protocol: 'https',
  bypass_hosts: [],
  config: { host: `${id}.proxy.example`, port: 8080 },
  password_sealed: null,
  status: null,
  status_detail: null,
  ip_address: null,
  last_checked: null,
  created_at: '2026-01-01T00:00:00.000Z',
  deleted_at: null,
  ...over,
});

describeStores('ProxiesRepo', (open) => {
  it('keeps every column as given, nulls, JSON and all', async () => {
    const repo = new ProxiesRepo(await open());
    const full = row('p1', {
      project_id: 'proj',
      name: 'Office',
      type: 'custom',
      protocol: 'http',
      bypass_hosts: ['localhost', '*.internal'],
      config: { host: 'office.example', port: 3128, username: 'u' },
      password_sealed: 'sealed',
      status: 'available',
      status_detail: 'ok',
      ip_address: '203.0.113.7',
      last_checked: '2026-01-02T00:00:00.000Z',
    });
    await repo.insert(full);
    await repo.insert(row('p2', { type: 'datacenter', config: { country: 'de' } }));
    expect(await repo.get('p1')).toEqual(full);
    expect(await repo.get('p2')).toEqual(row('p2', { type: 'datacenter', config: { country: 'de' } }));
    expect(await repo.get('missing')).toBeUndefined();
  });

  it('renames, records checks and soft-deletes once, keeping the deleted row readable', async () => {
    const repo = new ProxiesRepo(await open());
    await repo.insert(row('p1', { name: 'a' }));
    await repo.rename('p1', 'b');
    await repo.setCheck('p1', { status: 'unavailable', status_detail: 'refused', ip_address: '198.51.100.1', last_checked: '2026-02-01T00:00:00.000Z' });
    expect(await repo.get('p1')).toMatchObject({ name: 'b', status: 'unavailable', status_detail: 'refused', ip_address: '198.51.100.1' });
    expect(await repo.softDelete('p1', new Date('2026-03-01T00:00:00.000Z'))).toBe(true);
    expect(await repo.softDelete('p1', new Date('2026-03-02T00:00:00.000Z'))).toBe(false);
    expect((await repo.get('p1'))?.deleted_at).toBe('2026-03-01T00:00:00.000Z');
    expect((await repo.list({ projectId: null, offset: 0, limit: 10 })).rows).toEqual([]);
  });

  it('finds up to two active proxies by name, case-insensitively, within the project', async () => {
    const repo = new ProxiesRepo(await open());
    await repo.insert(row('a', { name: 'Twin' }));
    await repo.insert(row('b', { name: 'TWIN' }));
    await repo.insert(row('c', { name: 'twin' }));
    await repo.insert(row('d', { name: 'twin', project_id: 'proj' }));
    await repo.insert(row('e', { name: 'solo', deleted_at: '2026-01-05T00:00:00.000Z' }));
    expect((await repo.activeByName(null, 'twin')).map((r) => r.id)).toEqual(['a', 'b']);
    expect((await repo.activeByName('proj', 'TWIN')).map((r) => r.id)).toEqual(['d']);
    expect(await repo.activeByName(null, 'solo')).toEqual([]);
  });

  it('pages oldest first; a query matches id, name, host and IP, wildcards literally', async () => {
    const repo = new ProxiesRepo(await open());
    await repo.insert(row('a', { name: 'Shop_1', config: { host: 'alpha.example', port: 1 } }));
    await repo.insert(row('b', { name: 'shopX1', config: { host: 'beta.example', port: 1 }, ip_address: '10.0.0.9' }));
    await repo.insert(row('c', { name: 'other', config: { host: 'GAMMA.example', port: 1 } }));
    await repo.insert(row('d', { name: 'Filter', project_id: 'proj' }));
    await repo.insert(row('e', { name: 'quote', config: { host: 'x', port: 1 }, status_detail: 'has "host":"alpha"' }));
    const ids = async (q: Parameters<ProxiesRepo['list']>[0]) => (await repo.list(q)).rows.map((r) => r.id);
    expect(await ids({ projectId: null, offset: 0, limit: 2 })).toEqual(['a', 'b']);
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).hasMore).toBe(true);
    expect((await repo.list({ projectId: null, offset: 3, limit: 2 })).hasMore).toBe(false);
    expect(await ids({ projectId: null, query: 'SHOP_', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: 'gamma', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: null, query: 'alpha', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: '10.0.0', offset: 0, limit: 10 })).toEqual(['b']);
    expect(await ids({ projectId: null, query: 'c', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: null, query: 'example', offset: 1, limit: 1 })).toEqual(['b']);
    expect((await repo.list({ projectId: null, query: 'example', offset: 1, limit: 1 })).hasMore).toBe(true);
    expect(await ids({ projectId: null, query: 'port', offset: 0, limit: 10 })).toEqual([]);
    expect(await ids({ projectId: null, name: 'OTHER', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: 'proj', offset: 0, limit: 10 })).toEqual(['d']);
  });

  it('links a browser to a proxy or a mode, the last link winning', async () => {
    const repo = new ProxiesRepo(await open());
    expect(await repo.browserLinks(['b1'])).toEqual(new Map());
    await repo.linkBrowser('b1', { proxy_id: 'p1', mode: null });
    expect((await repo.browserLinks(['b1'])).get('b1')).toEqual({ proxy_id: 'p1', mode: null, proxy_name: null });
    await repo.linkBrowser('b1', { proxy_id: null, mode: 'direct' });
    expect((await repo.browserLinks(['b1'])).get('b1')).toEqual({ proxy_id: null, mode: 'direct', proxy_name: null });
    // A page of sessions reads its links in one query, with the linked proxy's name (null for an unnamed one).
    await repo.insert(row('p2', { name: 'egress' }));
    await repo.insert(row('p3', { name: null }));
    await repo.linkBrowser('b2', { proxy_id: 'p2', mode: null });
    await repo.linkBrowser('b3', { proxy_id: 'p3', mode: null });
    expect(await repo.browserLinks(['b1', 'b2', 'b3', 'b4'])).toEqual(
      new Map([
        ['b1', { proxy_id: null, mode: 'direct', proxy_name: null }],
        ['b2', { proxy_id: 'p2', mode: null, proxy_name: 'egress' }],
        ['b3', { proxy_id: 'p3', mode: null, proxy_name: null }],
      ]),
    );
  });
});

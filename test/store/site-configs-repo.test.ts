// SiteConfigsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { SiteConfigsRepo, type SiteConfigRow } from '../../src/service/store/site-configs-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const row = (id: string, domain: string, over: Partial<SiteConfigRow> = {}): SiteConfigRow => ({
  id,
  project_id: null,
  domain,
  settings: {},
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describeStores('SiteConfigsRepo', (open) => {
  it('keeps a config with its settings, by id and by exact domain within its project', async () => {
    const repo = new SiteConfigsRepo(await open());
    const full = row('s1', '*.shop.example', { project_id: 'proj', settings: { stealth: true, headless: false, proxy_id: 'p1', notes: 'Slow "checkout"' } });
    await repo.insert(full);
    await repo.insert(row('s2', 'shop.example'));
    expect(await repo.get('s1')).toEqual(full);
    expect((await repo.getByName('proj', '*.SHOP.example'))?.id).toBe('s1');
    expect(await repo.getByName(null, '*.shop.example')).toBeUndefined();
    expect((await repo.ofProject(null)).map((r) => r.id)).toEqual(['s2']);
    expect((await repo.ofProject('proj')).map((r) => r.id)).toEqual(['s1']);
  });

  it('refuses a domain the project has, on insert and on modify; modify sees the stored row', async () => {
    const repo = new SiteConfigsRepo(await open());
    await repo.insert(row('s1', 'a.example'));
    await repo.insert(row('s2', 'b.example', { settings: { notes: 'kept' } }));
    await repo.insert(row('s3', 'a.example', { project_id: 'proj' }));
    await expect(repo.insert(row('s4', 'a.example'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.modify('s2', (r) => ({ ...r, domain: 'a.example' }))).rejects.toBeInstanceOf(UniqueViolation);
    expect((await repo.get('s2'))?.domain).toBe('b.example');
    const next = await repo.modify('s2', (r) => ({ ...r, settings: { ...r.settings, stealth: true }, updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(next).toEqual(row('s2', 'b.example', { settings: { notes: 'kept', stealth: true }, updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(await repo.get('s2')).toEqual(next);
    expect(await repo.modify('s2', () => undefined)).toBeUndefined();
    expect(await repo.modify('missing', (r) => r)).toBeUndefined();
  });

  it('concurrent modifications of one config each see the other', async () => {
    const repo = new SiteConfigsRepo(await open());
    await repo.insert(row('s1', 'a.example'));
    await Promise.all(
      (['stealth', 'headless'] as const).map((key) => repo.modify('s1', (r) => ({ ...r, settings: { ...r.settings, [key]: true } }))),
    );
    expect((await repo.get('s1'))?.settings).toEqual({ stealth: true, headless: true });
  });

  it('finds the configs that use a proxy by their settings exactly', async () => {
    const repo = new SiteConfigsRepo(await open());
    await repo.insert(row('s1', 'a.example', { settings: { proxy_id: 'P1' } }));
    await repo.insert(row('s2', 'b.example', { settings: { proxy_id: 'P10' } }));
    await repo.insert(row('s3', 'c.example', { settings: { notes: 'P1' } }));
    await repo.insert(row('s4', 'd.example', { project_id: 'proj', settings: { proxy_id: 'P1' } }));
    expect((await repo.usingProxy('P1')).map((r) => r.id)).toEqual(['s1', 's4']);
    expect(await repo.usingProxy('p')).toEqual([]);
  });

  it('pages oldest first; a query matches id, domain and notes, wildcards literally', async () => {
    const repo = new SiteConfigsRepo(await open());
    await repo.insert(row('a', 'shop_1.example'));
    await repo.insert(row('b', 'shopx1.example', { settings: { notes: 'Needs a "Residential" IP' } }));
    await repo.insert(row('c', 'other.example', { settings: { proxy_id: 'residential-one' } }));
    await repo.insert(row('d', 'proj.example', { project_id: 'proj' }));
    const ids = async (q: Parameters<SiteConfigsRepo['list']>[0]) => (await repo.list(q)).rows.map((r) => r.id);
    expect(await ids({ projectId: null, offset: 0, limit: 2 })).toEqual(['a', 'b']);
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).hasMore).toBe(true);
    expect((await repo.list({ projectId: null, offset: 2, limit: 2 })).hasMore).toBe(false);
    expect(await ids({ projectId: null, query: 'SHOP_', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: 'residential', offset: 0, limit: 10 })).toEqual(['b']);
    expect(await ids({ projectId: null, query: '"residential"', offset: 0, limit: 10 })).toEqual(['b']);
    expect(await ids({ projectId: null, query: 'c', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: null, query: 'example', offset: 1, limit: 1 })).toEqual(['b']);
    expect((await repo.list({ projectId: null, query: 'example', offset: 1, limit: 1 })).hasMore).toBe(true);
    expect(await ids({ projectId: 'proj', offset: 0, limit: 10 })).toEqual(['d']);
    await repo.remove('a');
    expect(await repo.get('a')).toBeUndefined();
  });

  it('links a browser to the config it was created with, the last link winning', async () => {
    const repo = new SiteConfigsRepo(await open());
    expect(await repo.browserLinks(['b1'])).toEqual(new Map());
    await repo.linkBrowser('b1', 's1');
    await repo.linkBrowser('b1', 's2');
    expect((await repo.browserLinks(['b1'])).get('b1')).toBe('s2');
    await repo.linkBrowser('b3', 's1');
    expect(await repo.browserLinks(['b1', 'b2', 'b3'])).toEqual(new Map([['b1', 's2'], ['b3', 's1']]));
    expect(await repo.browserLinks([])).toEqual(new Map());
  });
});

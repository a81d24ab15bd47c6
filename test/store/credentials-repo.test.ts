// CredentialsRepo's and CredentialProvidersRepo's contracts, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { CredentialProvidersRepo, CredentialsRepo, type CredentialProviderRow, type CredentialRow } from '../../src/service/store/credentials-repo.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const credential = (id: string, name: string, over: Partial<CredentialRow> = {}): CredentialRow => ({
  id,
  project_id: null,
  name,
  domain: 'shop.example',
  value_keys: [],
  values_sealed: null,
  sso_provider: null,
  totp_sealed: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const provider = (id: string, name: string, over: Partial<CredentialProviderRow> = {}): CredentialProviderRow => ({
  id,
  name,
  provider_type: 'onepassword',
  token_sealed: `token-${id}`,
  enabled: true,
  priority: 0,
  cache_ttl_seconds: 300,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describeStores('CredentialsRepo', (open) => {
  it('keeps every column, by id and by name within its project', async () => {
    const repo = new CredentialsRepo(await open());
    const full = credential('c1', 'login', {
      project_id: 'proj',
      value_keys: ['username', 'password'],
      values_sealed: 'sealed-values',
      sso_provider: 'google',
      totp_sealed: 'sealed-totp',
    });
    await repo.insert(full);
    await repo.insert(credential('c2', 'login'));
    expect(await repo.get('c1')).toEqual(full);
    expect(await repo.get('c2')).toEqual(credential('c2', 'login'));
    expect((await repo.getByName('proj', 'login'))?.id).toBe('c1');
    expect((await repo.getByName(null, 'login'))?.id).toBe('c2');
    expect(await repo.getByName('other', 'login')).toBeUndefined();
  });

  it('refuses a name taken in the project, on insert and on modify, and modifies the stored row', async () => {
    const repo = new CredentialsRepo(await open());
    await repo.insert(credential('c1', 'a'));
    await repo.insert(credential('c2', 'b', { value_keys: ['x'] }));
    await expect(repo.insert(credential('c3', 'a'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.modify('c2', (r) => ({ ...r, name: 'a' }))).rejects.toBeInstanceOf(UniqueViolation);
    const next = await repo.modify('c2', (r) => ({ ...r, value_keys: [...r.value_keys, 'y'], values_sealed: 'v', sso_provider: 'okta', totp_sealed: 't', updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(next).toEqual(credential('c2', 'b', { value_keys: ['x', 'y'], values_sealed: 'v', sso_provider: 'okta', totp_sealed: 't', updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(await repo.get('c2')).toEqual(next);
    expect(await repo.modify('missing', (r) => r)).toBeUndefined();
    expect(await repo.modify('c2', () => undefined)).toBeUndefined();
  });

  it('concurrent modifications of one credential each see the other', async () => {
    const repo = new CredentialsRepo(await open());
    await repo.insert(credential('c1', 'a'));
    await Promise.all(['k1', 'k2', 'k3'].map((key) => repo.modify('c1', (r) => ({ ...r, value_keys: [...r.value_keys, key] }))));
    expect((await repo.get('c1'))?.value_keys.sort()).toEqual(['k1', 'k2', 'k3']);
  });

  it('pages oldest first; filters by domain (case-insensitive) and a query on id, name and domain', async () => {
    const repo = new CredentialsRepo(await open());
    await repo.insert(credential('a', 'Shop_1'));
    await repo.insert(credential('b', 'shopX1', { domain: 'Mail.example' }));
    await repo.insert(credential('c', 'other', { domain: 'mail.example' }));
    await repo.insert(credential('d', 'mine', { project_id: 'proj' }));
    const ids = async (q: Parameters<CredentialsRepo['list']>[0]) => (await repo.list(q)).rows.map((r) => r.id);
    expect(await ids({ projectId: null, offset: 0, limit: 2 })).toEqual(['a', 'b']);
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).hasMore).toBe(true);
    expect((await repo.list({ projectId: null, offset: 1, limit: 2 })).hasMore).toBe(false);
    expect(await ids({ projectId: null, domain: 'MAIL.example', offset: 0, limit: 10 })).toEqual(['b', 'c']);
    expect(await ids({ projectId: null, query: 'SHOP_', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: 'mail', offset: 0, limit: 10 })).toEqual(['b', 'c']);
    expect(await ids({ projectId: null, query: 'c', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: 'proj', offset: 0, limit: 10 })).toEqual(['d']);
    await repo.remove('a');
    expect(await repo.get('a')).toBeUndefined();
  });
});

describeStores('CredentialProvidersRepo', (open) => {
  it('keeps every column, flags as booleans, by id and by name', async () => {
    const repo = new CredentialProvidersRepo(await open());
    const off = provider('p2', 'Vault', { enabled: false, priority: 5, cache_ttl_seconds: 0 });
    await repo.insert(provider('p1', 'main'));
    await repo.insert(off);
    expect(await repo.get('p1')).toEqual(provider('p1', 'main'));
    expect(await repo.get('p2')).toEqual(off);
    expect((await repo.getByName('Vault'))?.id).toBe('p2');
    expect(await repo.getByName('vault')).toBeUndefined();
  });

  it('refuses a taken name on insert and on modify, and modifies the stored row', async () => {
    const repo = new CredentialProvidersRepo(await open());
    await repo.insert(provider('p1', 'a'));
    await repo.insert(provider('p2', 'b'));
    await expect(repo.insert(provider('p3', 'a'))).rejects.toBeInstanceOf(UniqueViolation);
    await expect(repo.modify('p2', (r) => ({ ...r, name: 'a' }))).rejects.toBeInstanceOf(UniqueViolation);
    const next = await repo.modify('p2', (r) => ({ ...r, enabled: false, priority: 3, token_sealed: 'new', updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(await repo.get('p2')).toEqual(next);
    expect(next).toMatchObject({ enabled: false, priority: 3, token_sealed: 'new' });
    expect(await repo.modify('missing', (r) => r)).toBeUndefined();
  });

  it('lists the enabled ones by priority then age, and pages with a query on id and name', async () => {
    const repo = new CredentialProvidersRepo(await open());
    await repo.insert(provider('a', 'Team_1', { priority: 2 }));
    await repo.insert(provider('b', 'teamX1', { priority: 1 }));
    await repo.insert(provider('c', 'other', { priority: 1 }));
    await repo.insert(provider('d', 'off', { enabled: false }));
    expect((await repo.enabled()).map((r) => r.id)).toEqual(['b', 'c', 'a']);
    const ids = async (q: Parameters<CredentialProvidersRepo['list']>[0]) => (await repo.list(q)).rows.map((r) => r.id);
    expect(await ids({ offset: 0, limit: 3 })).toEqual(['a', 'b', 'c']);
    expect((await repo.list({ offset: 0, limit: 3 })).hasMore).toBe(true);
    expect((await repo.list({ offset: 1, limit: 3 })).hasMore).toBe(false);
    expect(await ids({ query: 'TEAM_', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ query: 'd', offset: 0, limit: 10 })).toEqual(['d']);
    await repo.remove('a');
    expect(await repo.get('a')).toBeUndefined();
  });
});

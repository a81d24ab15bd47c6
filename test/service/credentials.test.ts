// Credentials and credential providers through the hosted SDK, unchanged: values and TOTP secrets go in
// sealed and never come out (not in answers, not in the database file); TOTP codes match RFC 6238's own
// vectors at the service's clock; 1Password providers are driven through 1Password's real SDK.
import Kernel from '@onkernel/sdk';
import { openServiceStore, storedBytes } from '../helpers/store-access.js';
import { sql } from '../../src/service/store/sql.js';
import { Secret } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsBox } from '../../src/service/secrets-box.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PASSWORD = 'correct-horse-battery-staple-7731';
/** RFC 6238 appendix B's SHA-1 seed, "12345678901234567890", in base32. */
const RFC_SHA1_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

let svc: TestService;
let kernel: Kernel;
/** The service's clock: tests move it to the RFC's instants. */
let clockMs = Date.parse('2026-01-01T00:00:00Z');

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(clockMs) });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  await svc?.close();
});

async function storedBytesContain(text: string): Promise<boolean> {
  return (await storedBytes(svc)).includes(Buffer.from(text));
}

async function storedValues(id: string): Promise<Record<string, string>> {
  const db = await openServiceStore(svc);
  const row = (await db.get<{ values_sealed: string }>(sql`SELECT values_sealed FROM credentials WHERE id = ${id}`))!;
  await db.close();
  return JSON.parse(SecretsBox.forDataDir(svc.dataDir).open(row.values_sealed, `credential:${id}:values`)) as Record<string, string>;
}

describe('credentials', () => {
  it('stores values and a TOTP secret sealed, answers only their names, and a fresh code on create', async () => {
    clockMs = Date.parse('2026-03-01T10:00:10Z');
    const created = await kernel.credentials.create({
      domain: 'Login.Example.test',
      name: 'sealed-login',
      values: { username: 'ada@example.test', password: PASSWORD },
      totp_secret: 'gezd gnbv gy3t qojq gezd gnbv gy3t qojq',
    });
    expect(created).toMatchObject({
      name: 'sealed-login',
      domain: 'login.example.test',
      has_values: true,
      has_totp_secret: true,
      value_keys: ['username', 'password'],
      totp_code_expires_at: '2026-03-01T10:00:30.000Z',
    });
    expect(created.totp_code).toMatch(/^\d{6}$/);
    // The same code the totp-code route gives at the same instant.
    expect((await kernel.credentials.totpCode(created.id)).code).toBe(created.totp_code);

    const byName = await kernel.credentials.retrieve('sealed-login');
    expect(byName.id).toBe(created.id);
    expect(byName.value_keys).toEqual(['username', 'password']);
    expect(byName.totp_code).toBeUndefined();
    const answers = JSON.stringify([byName, (await svc.call('GET', '/credentials?limit=100')).body]);
    expect(answers).not.toContain(PASSWORD);
    expect(answers).not.toContain(RFC_SHA1_SECRET);
    expect(await storedBytesContain(PASSWORD)).toBe(false);
    expect(await storedBytesContain(RFC_SHA1_SECRET)).toBe(false);
  });

  it('gives RFC 6238 codes at the RFC test instants (SHA-1, and SHA-256/512 through otpauth URIs)', async () => {
    const sha1 = await kernel.credentials.create({ domain: 'rfc.test', name: 'rfc-sha1', values: {}, totp_secret: RFC_SHA1_SECRET });
    // 6 digits are the last 6 of the RFC's 8-digit values.
    const vectors: Array<[number, string]> = [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
      [20000000000, '353130'],
    ];
    for (const [seconds, code] of vectors) {
      clockMs = seconds * 1000;
      const answer = await kernel.credentials.totpCode(sha1.id);
      expect(answer.code).toBe(code);
      expect(Date.parse(answer.expires_at)).toBe((Math.floor(seconds / 30) + 1) * 30_000);
    }
    const seed32 = '12345678901234567890123456789012';
    const seed64 = '1234567890123456789012345678901234567890123456789012345678901234';
    const uri = (alg: string, seed: string) => `otpauth://totp/rfc:${alg}?secret=${Secret.fromUTF8(seed).base32}&algorithm=${alg}&digits=8&period=30`;
    const sha256 = await kernel.credentials.create({ domain: 'rfc.test', name: 'rfc-sha256', values: {}, totp_secret: uri('SHA256', seed32) });
    const sha512 = await kernel.credentials.create({ domain: 'rfc.test', name: 'rfc-sha512', values: {}, totp_secret: uri('SHA512', seed64) });
    clockMs = 59_000;
    expect((await kernel.credentials.totpCode('rfc-sha256')).code).toBe('46119246');
    expect((await kernel.credentials.totpCode(sha512.id)).code).toBe('90693936');
    clockMs = 20000000000 * 1000;
    expect((await kernel.credentials.totpCode(sha256.id)).code).toBe('77737706');
    expect((await kernel.credentials.totpCode('rfc-sha512')).code).toBe('47863826');
    clockMs = Date.parse('2026-01-01T00:00:00Z');
  });

  it('updates: removals first, then values merged; renames; sso_provider and totp_secret set and removed', async () => {
    const c = await kernel.credentials.create({ domain: 'merge.test', name: 'merge-me', values: { username: 'u', password: 'p1', pin: '1234' } });
    const updated = await kernel.credentials.update('merge-me', {
      name: 'merged',
      remove_value_keys: ['pin', 'password'],
      values: { password: 'p2', email: 'e@merge.test' },
      sso_provider: 'google',
    });
    expect(updated).toMatchObject({ name: 'merged', sso_provider: 'google', has_totp_secret: false });
    expect(updated.value_keys!.sort()).toEqual(['email', 'password', 'username']);
    expect(await storedValues(c.id)).toEqual({ username: 'u', password: 'p2', email: 'e@merge.test' });

    const withTotp = await kernel.credentials.update(c.id, { totp_secret: RFC_SHA1_SECRET, sso_provider: null });
    expect(withTotp).toMatchObject({ has_totp_secret: true, sso_provider: null });
    expect(withTotp.totp_code).toMatch(/^\d{6}$/);
    const renamedOnly = await kernel.credentials.update(c.id, { name: 'merged-2' });
    expect(renamedOnly.totp_code).toBeUndefined();
    const cleared = await kernel.credentials.update(c.id, { totp_secret: '' });
    expect(cleared.has_totp_secret).toBe(false);
    const noCode = await svc.call('GET', `/credentials/${c.id}/totp-code`);
    expect(noCode.status).toBe(400);
    expect(noCode.body.code).toBe('totp_not_configured');
    // Every value removed: no values left at all.
    const emptied = await kernel.credentials.update(c.id, { remove_value_keys: ['username', 'password', 'email'] });
    expect(emptied).toMatchObject({ has_values: false, value_keys: [] });
  });

  it('refuses bad input with the field named, and a taken name with 409, changing nothing', async () => {
    await kernel.credentials.create({ domain: 'dup.test', name: 'dup', values: { a: 'b' } });
    const dup = await svc.call('POST', '/credentials', { body: { domain: 'dup.test', name: 'dup', values: {} } });
    expect(dup.status).toBe(409);
    const other = await kernel.credentials.create({ domain: 'dup.test', name: 'dup-2', values: {} });
    expect((await svc.call('PATCH', `/credentials/${other.id}`, { body: { name: 'dup' } })).status).toBe(409);
    expect((await kernel.credentials.retrieve(other.id)).name).toBe('dup-2');

    const cases: Array<[unknown, string]> = [
      [{ domain: 'x.test', name: 'bad-totp', values: {}, totp_secret: 'not base32 at all!' }, 'body.totp_secret'],
      [{ domain: 'x.test', name: 'short-totp', values: {}, totp_secret: 'ABCDEFGH' }, 'body.totp_secret'],
      [{ domain: 'x.test', name: 'hotp', values: {}, totp_secret: `otpauth://hotp/x?secret=${RFC_SHA1_SECRET}&counter=1` }, 'body.totp_secret'],
      [{ domain: 'not a domain', name: 'bad-domain', values: {} }, 'body.domain'],
      [{ domain: 'x.test', name: 'bad-values', values: { a: 1 } }, 'body.values.a'],
      [{ domain: 'x.test', values: {} }, 'body.name'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.call('POST', '/credentials', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const names = (await svc.call('GET', '/credentials?limit=100')).body.map((c: { name: string }) => c.name);
    expect(names).not.toContain('bad-totp');
    expect(names).not.toContain('hotp');
  });

  it('lists without value keys, filtered by domain and query, paged, and deletes by name', async () => {
    for (const n of ['list-a', 'list-b', 'list-c']) await kernel.credentials.create({ domain: 'paging.test', name: n, values: { username: n } });
    const first = await svc.call('GET', '/credentials?domain=PAGING.test&limit=2');
    expect(first.body.map((c: { name: string }) => c.name)).toEqual(['list-a', 'list-b']);
    expect(first.body[0].value_keys).toBeUndefined();
    expect(first.headers.get('x-has-more')).toBe('true');
    expect(first.headers.get('x-next-offset')).toBe('2');
    const all = [];
    for await (const c of kernel.credentials.list({ domain: 'paging.test', limit: 2 })) all.push(c.name);
    expect(all).toEqual(['list-a', 'list-b', 'list-c']);
    expect((await kernel.credentials.list({ query: 'IST-B' })).getPaginatedItems().map((c) => c.name)).toEqual(['list-b']);

    await kernel.credentials.delete('list-b');
    expect((await svc.call('GET', '/credentials/list-b')).status).toBe(404);
    expect((await svc.call('DELETE', '/credentials/list-b')).status).toBe(404);
  });

  it('keeps each project to its own credentials', async () => {
    const project = await kernel.projects.create({ name: 'creds-project' });
    const scoped = new Kernel({ apiKey: (await kernel.apiKeys.create({ name: 'creds', project_id: project.id })).key, baseURL: svc.baseUrl, maxRetries: 0 });
    const mine = await scoped.credentials.create({ domain: 'p.test', name: 'sealed-login', values: { username: 'p' } });
    // The same name as the default scope's is another credential.
    expect(mine.id).not.toBe((await kernel.credentials.retrieve('sealed-login')).id);
    expect((await scoped.credentials.list()).getPaginatedItems().map((c) => c.name)).toEqual(['sealed-login']);
    await expect(scoped.credentials.retrieve('dup')).rejects.toMatchObject({ status: 404 });
    await expect(kernel.credentials.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await scoped.credentials.delete(mine.id);
  });
});

describe('credential providers', () => {
  const TOKEN = 'ops_not-a-real-service-account-token-0042';

  it('keeps the token sealed; lists, renames, disables and reorders; refuses a taken name', async () => {
    const created = await kernel.credentialProviders.create({ name: 'vault-one', token: TOKEN, provider_type: 'onepassword' });
    expect(created).toMatchObject({ name: 'vault-one', provider_type: 'onepassword', enabled: true, priority: 0 });
    expect(JSON.stringify(created)).not.toContain(TOKEN);
    expect(await storedBytesContain(TOKEN)).toBe(false);
    const second = await kernel.credentialProviders.create({ name: 'vault-two', token: TOKEN, provider_type: 'onepassword', cache_ttl_seconds: 0 });
    expect((await svc.call('POST', '/org/credential_providers', { body: { name: 'vault-one', token: 'x', provider_type: 'onepassword' } })).status).toBe(409);

    const updated = await kernel.credentialProviders.update(created.id, { name: 'vault-1', enabled: false, priority: 5, cache_ttl_seconds: 60 });
    expect(updated).toMatchObject({ name: 'vault-1', enabled: false, priority: 5 });
    expect((await kernel.credentialProviders.retrieve(created.id)).name).toBe('vault-1');
    const listed = (await kernel.credentialProviders.list()).getPaginatedItems().map((p) => p.name);
    expect(listed).toEqual(['vault-1', 'vault-two']);
    expect((await kernel.credentialProviders.list({ query: 'TWO' })).getPaginatedItems().map((p) => p.id)).toEqual([second.id]);
    const bad = await svc.call('POST', '/org/credential_providers', { body: { name: 'x', token: 'y', provider_type: 'bitwarden' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('body.provider_type');
  });

  it('tests and lists items through 1Password\'s SDK: a token it refuses is success false with its reason, never a hang', async () => {
    const provider = await kernel.credentialProviders.create({ name: 'op-test', token: TOKEN, provider_type: 'onepassword' });
    const started = Date.now();
    const result = await kernel.credentialProviders.test(provider.id);
    expect(result.success).toBe(false);
    expect(result.vaults).toEqual([]);
    expect(result.error).toMatch(/service account token/i);
    const items = await svc.call('GET', `/org/credential_providers/${provider.id}/items`);
    expect(items.status).toBe(503);
    expect(items.body).toMatchObject({ code: 'provider_unavailable' });
    expect(items.body.message).toMatch(/op-test.*service account token/i);
    await expect(kernel.credentialProviders.listItems(provider.id)).rejects.toMatchObject({ status: 503 });
    expect(Date.now() - started).toBeLessThan(15_000);
    await kernel.credentialProviders.delete(provider.id);
    await expect(kernel.credentialProviders.retrieve(provider.id)).rejects.toMatchObject({ status: 404 });
  });

  it('belongs to the organisation: project keys cannot see or change providers', async () => {
    const project = await kernel.projects.create({ name: 'providers-project' });
    const key = (await kernel.apiKeys.create({ name: 'p', project_id: project.id })).key;
    const res = await fetch(`${svc.baseUrl}/org/credential_providers`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(403);
  });
});

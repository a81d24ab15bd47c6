// AuthConnectionsRepo's contract, on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { AuthConnectionsRepo, type ConnectionRow, type FlowState } from '../../src/service/store/auth-connections-repo.js';
import type { TimelineEvent } from '../../src/api/schemas/auth-connections.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const connection = (id: string, domain: string, profileName: string, over: Partial<ConnectionRow> = {}): ConnectionRow => ({
  id,
  project_id: null,
  domain,
  profile_id: `prof-${profileName}`,
  profile_name: profileName,
  proxy_id: null,
  settings: {
    login_url: null,
    allowed_domains: [],
    credential: null,
    browser: null,
    browser_telemetry: null,
    auto_reauth: false,
    health_checks: true,
    health_check_interval: 3600,
    save_credentials: true,
    record_session: false,
  },
  status: 'NEEDS_AUTH',
  flow: null,
  last_auth_at: null,
  last_auth_check_at: null,
  post_login_url: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

const flow: FlowState = {
  id: 'f1',
  type: 'LOGIN',
  status: 'IN_PROGRESS',
  step: 'AWAITING_INPUT',
  started_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T00:10:00.000Z',
  handoff_code: 'code',
  browser_session_id: 'b1',
  replay_id: null,
  timeline_id: 't1',
  discovered_fields: null,
  fields: [{ id: 'field_1', ref: 'user', type: 'identifier', label: 'User', observed_selector: '#user', required: true }],
  choices: null,
  mfa_options: null,
  pending_sso_buttons: null,
  website_error: null,
  error_code: null,
  error_message: null,
};

const event = (id: string, type: TimelineEvent['type'], status: TimelineEvent['status']): TimelineEvent => ({
  id,
  type,
  status,
  timestamp: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

describeStores('AuthConnectionsRepo', (open) => {
  it('keeps every column with its settings and flow, and lists all, by proxy and by profile', async () => {
    const repo = new AuthConnectionsRepo(await open());
    const full = connection('c1', 'shop.example', 'main', {
      project_id: 'proj',
      proxy_id: 'p1',
      settings: { ...connection('x', 'x', 'x').settings, login_url: 'https://shop.example/login', allowed_domains: ['sso.example'], credential: { name: 'cred' }, auto_reauth: true },
      status: 'AUTHENTICATED',
      flow,
      last_auth_at: '2026-01-02T00:00:00.000Z',
      last_auth_check_at: '2026-01-03T00:00:00.000Z',
      post_login_url: 'https://shop.example/home',
    });
    await repo.insert(full);
    await repo.insert(connection('c2', 'mail.example', 'main'));
    expect(await repo.get('c1')).toEqual(full);
    expect(await repo.get('c2')).toEqual(connection('c2', 'mail.example', 'main'));
    expect((await repo.all()).map((r) => r.id)).toEqual(['c1', 'c2']);
    expect((await repo.usingProxy('p1')).map((r) => r.id)).toEqual(['c1']);
    expect((await repo.usingProfile('prof-main')).map((r) => r.id)).toEqual(['c1', 'c2']);
  });

  it('refuses a second connection for a domain and profile in the project', async () => {
    const repo = new AuthConnectionsRepo(await open());
    await repo.insert(connection('c1', 'shop.example', 'main'));
    await repo.insert(connection('c2', 'shop.example', 'main', { project_id: 'proj' }));
    await expect(repo.insert(connection('c3', 'shop.example', 'main'))).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('modifies the stored row in one transaction; concurrent modifications each see the other', async () => {
    const repo = new AuthConnectionsRepo(await open());
    await repo.insert(connection('c1', 'shop.example', 'main'));
    const next = await repo.modify('c1', (r) => ({ ...r, flow, status: 'AUTHENTICATED', proxy_id: 'p2', post_login_url: 'https://x/', updated_at: '2026-02-01T00:00:00.000Z' }));
    expect(await repo.get('c1')).toEqual(next);
    expect(next).toMatchObject({ flow, status: 'AUTHENTICATED', proxy_id: 'p2' });
    await Promise.all([
      repo.modify('c1', (r) => ({ ...r, settings: { ...r.settings, auto_reauth: true } })),
      repo.modify('c1', (r) => ({ ...r, flow: { ...r.flow!, step: 'SUBMITTING' } })),
      repo.modify('c1', (r) => ({ ...r, last_auth_check_at: '2026-03-01T00:00:00.000Z' })),
    ]);
    expect(await repo.get('c1')).toMatchObject({ settings: { auto_reauth: true }, flow: { step: 'SUBMITTING' }, last_auth_check_at: '2026-03-01T00:00:00.000Z' });
    expect(await repo.modify('c1', () => undefined)).toBeUndefined();
    expect(await repo.modify('missing', (r) => r)).toBeUndefined();
  });

  it('pages oldest first; filters by domain (case-insensitive), profile and a query', async () => {
    const repo = new AuthConnectionsRepo(await open());
    await repo.insert(connection('a', 'shop_1.example', 'main'));
    await repo.insert(connection('b', 'SHOPX1.example', 'alt'));
    await repo.insert(connection('c', 'mail.example', 'Work_Profile'));
    await repo.insert(connection('d', 'shop_1.example', 'main', { project_id: 'proj' }));
    const ids = async (q: Parameters<AuthConnectionsRepo['list']>[0]) => (await repo.list(q)).rows.map((r) => r.id);
    expect(await ids({ projectId: null, offset: 0, limit: 2 })).toEqual(['a', 'b']);
    expect((await repo.list({ projectId: null, offset: 0, limit: 2 })).hasMore).toBe(true);
    expect((await repo.list({ projectId: null, offset: 1, limit: 2 })).hasMore).toBe(false);
    expect(await ids({ projectId: null, domain: 'shopx1.EXAMPLE', offset: 0, limit: 10 })).toEqual(['b']);
    expect(await ids({ projectId: null, profileName: 'main', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: 'SHOP_', offset: 0, limit: 10 })).toEqual(['a']);
    expect(await ids({ projectId: null, query: 'work_', offset: 0, limit: 10 })).toEqual(['c']);
    expect(await ids({ projectId: null, query: 'b', offset: 0, limit: 10 })).toEqual(['b']);
    expect(await ids({ projectId: 'proj', offset: 0, limit: 10 })).toEqual(['d']);
  });

  it('keeps a timeline newest first, by type, updated in place, and removes it with its connection', async () => {
    const repo = new AuthConnectionsRepo(await open());
    await repo.insert(connection('c1', 'shop.example', 'main'));
    await repo.insert(connection('c2', 'mail.example', 'main'));
    await repo.addTimeline('c1', event('e1', 'login', 'IN_PROGRESS'));
    await repo.addTimeline('c1', event('e2', 'health_check', 'AUTHENTICATED'));
    await repo.addTimeline('c1', event('e3', 'reauth', 'IN_PROGRESS'));
    await repo.addTimeline('c2', event('e4', 'login', 'IN_PROGRESS'));
    await repo.setTimeline({ ...event('e1', 'login', 'SUCCESS'), step: 'COMPLETED' });
    const page = await repo.timeline('c1', { offset: 0, limit: 2 });
    expect(page.rows.map((e) => e.id)).toEqual(['e3', 'e2']);
    expect(page.hasMore).toBe(true);
    expect((await repo.timeline('c1', { offset: 2, limit: 2 })).rows).toEqual([{ ...event('e1', 'login', 'SUCCESS'), step: 'COMPLETED' }]);
    expect((await repo.timeline('c1', { type: 'login', offset: 0, limit: 10 })).rows.map((e) => e.id)).toEqual(['e1']);
    await repo.remove('c1');
    expect(await repo.get('c1')).toBeUndefined();
    expect((await repo.timeline('c1', { offset: 0, limit: 10 })).rows).toEqual([]);
    expect((await repo.timeline('c2', { offset: 0, limit: 10 })).rows.map((e) => e.id)).toEqual(['e4']);
  });
});

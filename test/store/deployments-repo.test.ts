// DeploymentsRepo's contract (deployments and their app versions), on both stores.
import { expect, it } from 'vitest';
import { describeStores } from '../helpers/stores.js';
import { DeploymentsRepo, type AppVersionRow, type DeploymentRow } from '../../src/service/store/deployments-repo.js';
import { sql } from '../../src/service/store/sql.js';
import { UniqueViolation } from '../../src/service/store/unique.js';

const AT = new Date('2026-02-03T04:05:06.000Z');

const deployment = (id: string, over: Partial<DeploymentRow> = {}): DeploymentRow => ({
  id,
  project_id: null,
  status: 'queued',
  status_reason: null,
  entrypoint_rel_path: null,
  env_vars: 'sealed:{}',
  version: '1.0.0',
  app_name: null,
  source_checksum: `sum-${id}`,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: null,
  ...over,
});

const version = (id: string, d: DeploymentRow, app: string): AppVersionRow => ({
  id,
  project_id: d.project_id,
  deployment_id: d.id,
  app_name: app,
  version: d.version,
  actions: JSON.stringify([{ name: 'go' }, { name: 'stop' }]),
  live: 1,
});

/** A deployment inserted and moved to in_progress, as a build has it before goLive. */
async function building(repo: DeploymentsRepo, id: string, over: Partial<DeploymentRow> = {}): Promise<DeploymentRow> {
  const d = deployment(id, over);
  await repo.insert(d);
  expect(await repo.transition(id, 'queued', 'in_progress', null, AT)).toBe(true);
  return d;
}

describeStores('DeploymentsRepo', (open) => {
  it('keeps every column as given, nulls included, and changes status only from the state named', async () => {
    const repo = new DeploymentsRepo(await open());
    const full = deployment('d1', { project_id: 'p', status_reason: 'why', entrypoint_rel_path: 'src/index.ts', app_name: 'a,b', updated_at: '2026-01-02T00:00:00.000Z' });
    await repo.insert(full);
    await repo.insert(deployment('d2'));
    expect(await repo.get('d1')).toEqual(full);
    expect(await repo.get('d2')).toEqual(deployment('d2'));
    expect(await repo.get('nope')).toBeUndefined();
    await expect(repo.insert(deployment('d1'))).rejects.toBeInstanceOf(UniqueViolation);

    await repo.setEntrypoint('d2', 'main.ts');
    expect(await repo.transition('d2', 'in_progress', 'running', null, AT)).toBe(false);
    expect(await repo.transition('d2', 'queued', 'in_progress', null, AT)).toBe(true);
    expect(await repo.get('d2')).toMatchObject({ status: 'in_progress', entrypoint_rel_path: 'main.ts', updated_at: AT.toISOString() });
    expect((await repo.withStatus('in_progress')).map((r) => r.id)).toEqual(['d2']);
    expect((await repo.withStatus('queued')).map((r) => r.id)).toEqual(['d1']);
  });

  it('goes live: versions registered, the app names and running status set; only from in_progress', async () => {
    const repo = new DeploymentsRepo(await open());
    const queued = deployment('q');
    await repo.insert(queued);
    expect(await repo.goLive('q', [version('vq', queued, 'x')], { force: false, reason: 'r', at: AT })).toEqual({ kind: 'not_building', status: 'queued' });
    expect(await repo.goLive('missing', [], { force: false, reason: 'r', at: AT })).toEqual({ kind: 'not_building', status: undefined });
    expect(await repo.versionsOf('q')).toEqual([]);

    const d = await building(repo, 'd1', { project_id: 'p' });
    const versions = [version('v1', d, 'alpha'), version('v2', d, 'beta')];
    expect(await repo.goLive('d1', versions, { force: false, reason: 'r', at: AT })).toEqual({ kind: 'live', replaced: [] });
    expect(await repo.get('d1')).toMatchObject({ status: 'running', status_reason: null, app_name: 'alpha,beta', updated_at: AT.toISOString() });
    expect(await repo.versionsOf('d1')).toEqual(versions);
    expect(await repo.liveVersion('p', 'alpha', '1.0.0')).toEqual(versions[0]);
    expect(await repo.liveVersion(null, 'alpha', '1.0.0')).toBeUndefined();
    expect(await repo.liveVersion('p', 'alpha', '2.0.0')).toBeUndefined();
  });

  it('refuses a version another deployment holds, and with force replaces that deployment in the same step', async () => {
    const repo = new DeploymentsRepo(await open());
    const first = await building(repo, 'd1');
    await repo.goLive('d1', [version('v1', first, 'app')], { force: false, reason: 'r', at: AT });
    // Another project may hold the same name and version.
    const elsewhere = await building(repo, 'e1', { project_id: 'other' });
    expect((await repo.goLive('e1', [version('ve', elsewhere, 'app')], { force: false, reason: 'r', at: AT })).kind).toBe('live');

    const second = await building(repo, 'd2');
    const held = await repo.goLive('d2', [version('v2', second, 'app'), version('v3', second, 'new')], { force: false, reason: 'r', at: AT });
    expect(held).toEqual({ kind: 'held', held: version('v1', first, 'app') });
    expect(await repo.versionsOf('d2')).toEqual([]);
    expect((await repo.get('d2'))?.status).toBe('in_progress');

    const forced = await repo.goLive('d2', [version('v2', second, 'app')], { force: true, reason: 'replaced by deployment d2', at: AT });
    expect(forced).toEqual({ kind: 'live', replaced: ['d1'] });
    expect(await repo.get('d1')).toMatchObject({ status: 'stopped', status_reason: 'replaced by deployment d2' });
    expect((await repo.versionsOf('d1')).map((v) => v.live)).toEqual([0]);
    expect((await repo.liveVersion(null, 'app', '1.0.0'))?.deployment_id).toBe('d2');
    expect((await repo.liveVersion('other', 'app', '1.0.0'))?.deployment_id).toBe('e1');
  });

  it('answers a write the live-version index refuses as UniqueViolation and writes nothing of it', async () => {
    const db = await open();
    const repo = new DeploymentsRepo(db);
    const d = await building(repo, 'd1');
    // One deployment registering the same app twice: the index, not the holder check, refuses the second.
    const twice = repo.goLive('d1', [version('v1', d, 'app'), version('v2', d, 'app')], { force: false, reason: 'r', at: AT });
    const err = await twice.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UniqueViolation);
    expect(await repo.versionsOf('d1')).toEqual([]);
    expect((await repo.get('d1'))?.status).toBe('in_progress');
    await db.run(sql`INSERT INTO app_versions (id, project_id, deployment_id, app_name, version, actions, live) VALUES ('x1', NULL, 'dx', 'app', '1.0.0', '[]', 1)`);
    await expect(db.run(sql`INSERT INTO app_versions (id, project_id, deployment_id, app_name, version, actions, live) VALUES ('x2', NULL, 'dy', 'app', '1.0.0', '[]', 1)`)).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('lets one of two concurrent builds of a version go live: the other is refused, or replaces it with force', async () => {
    const repo = new DeploymentsRepo(await open());
    const [a, b] = [await building(repo, 'a'), await building(repo, 'b')];
    const results = await Promise.all([a, b].map((d) => repo.goLive(d.id, [version(`v-${d.id}`, d, 'app')], { force: false, reason: 'r', at: AT })));
    expect(results.map((r) => r.kind).sort()).toEqual(['held', 'live']);
    expect((await repo.listApps({ projectId: null, offset: 0, limit: 10 })).rows).toHaveLength(1);

    const [c, e] = [await building(repo, 'c'), await building(repo, 'e')];
    await Promise.all([c, e].map((d) => repo.goLive(d.id, [version(`v-${d.id}`, d, 'app')], { force: true, reason: `replaced by ${d.id}`, at: AT })));
    const live = (await repo.listApps({ projectId: null, offset: 0, limit: 10 })).rows;
    expect(live).toHaveLength(1);
    const statuses = await Promise.all(['a', 'b', 'c', 'e'].map(async (id) => (await repo.get(id))?.status));
    expect(statuses.filter((s) => s === 'running')).toHaveLength(1);
  });

  it('stops a deployment once: its versions are retired, a second end changes nothing', async () => {
    const repo = new DeploymentsRepo(await open());
    const d = await building(repo, 'd1');
    await repo.goLive('d1', [version('v1', d, 'app')], { force: false, reason: 'r', at: AT });
    const later = new Date('2026-03-01T00:00:00.000Z');
    expect(await repo.stop('d1', 'stopped', 'stopped by request', later)).toBe(true);
    expect(await repo.get('d1')).toMatchObject({ status: 'stopped', status_reason: 'stopped by request', updated_at: later.toISOString() });
    expect(await repo.liveVersion(null, 'app', '1.0.0')).toBeUndefined();
    expect(await repo.stop('d1', 'failed', 'too late', AT)).toBe(false);
    expect((await repo.get('d1'))?.status).toBe('stopped');

    await repo.insert(deployment('q'));
    expect(await repo.stop('q', 'failed', 'the build failed', AT)).toBe(true);
    expect(await repo.get('q')).toMatchObject({ status: 'failed', status_reason: 'the build failed' });
    expect(await repo.stop('missing', 'failed', 'x', AT)).toBe(false);
  });

  it('lists deployments newest first, by app and version, by query (case-insensitive, wildcards literal), per project', async () => {
    const repo = new DeploymentsRepo(await open());
    const one = await building(repo, 'dep_one');
    await repo.goLive(one.id, [version('v1', one, 'Shop_1')], { force: false, reason: 'r', at: AT });
    const two = await building(repo, 'depXtwo', { version: '2.0.0' });
    await repo.goLive(two.id, [version('v2', two, 'shopX1')], { force: false, reason: 'r', at: AT });
    await repo.insert(deployment('queued'));
    await repo.insert(deployment('theirs', { project_id: 'p' }));
    const ids = async (q: Partial<Parameters<DeploymentsRepo['list']>[0]>) =>
      (await repo.list({ projectId: null, offset: 0, limit: 10, ...q })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['queued', 'depXtwo', 'dep_one']);
    expect(await repo.list({ projectId: null, offset: 0, limit: 2 })).toMatchObject({ hasMore: true });
    expect(await repo.list({ projectId: null, offset: 2, limit: 2 })).toMatchObject({ hasMore: false, rows: [{ id: 'dep_one' }] });
    expect(await ids({ appName: 'shopX1' })).toEqual(['depXtwo']);
    expect(await ids({ appVersion: '1.0.0' })).toEqual(['dep_one']);
    expect(await ids({ appName: 'shopX1', appVersion: '1.0.0' })).toEqual([]);
    expect(await ids({ query: 'SHOP_' })).toEqual(['dep_one']);
    expect(await ids({ query: 'P_O' })).toEqual(['dep_one']);
    expect(await ids({ projectId: 'p' })).toEqual(['theirs']);
  });

  it('lists live app versions newest first, filtered by app, version and query', async () => {
    const repo = new DeploymentsRepo(await open());
    const one = await building(repo, 'd1');
    await repo.goLive('d1', [version('v1', one, 'Shop_1'), version('v2', one, 'other')], { force: false, reason: 'r', at: AT });
    const two = await building(repo, 'd2', { version: '2.0.0', project_id: 'p' });
    await repo.goLive('d2', [version('v3', two, 'Shop_1')], { force: false, reason: 'r', at: AT });
    const gone = await building(repo, 'd3', { version: '3.0.0' });
    await repo.goLive('d3', [version('v4', gone, 'shopX1')], { force: false, reason: 'r', at: AT });
    await repo.stop('d3', 'stopped', 'x', AT);
    const ids = async (q: Partial<Parameters<DeploymentsRepo['listApps']>[0]>) =>
      (await repo.listApps({ projectId: null, offset: 0, limit: 10, ...q })).rows.map((r) => r.id);
    expect(await ids({})).toEqual(['v2', 'v1']);
    expect(await repo.listApps({ projectId: null, offset: 0, limit: 1 })).toMatchObject({ hasMore: true, rows: [{ id: 'v2' }] });
    expect(await ids({ appName: 'other' })).toEqual(['v2']);
    expect(await ids({ version: '2.0.0' })).toEqual([]);
    expect(await ids({ projectId: 'p', version: '2.0.0' })).toEqual(['v3']);
    expect(await ids({ query: 'shop_' })).toEqual(['v1']);
  });
});

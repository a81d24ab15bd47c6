// Per-project max_concurrent_sessions: on-demand sessions plus pool reservations of the project, checked
// together with the org limit (a create counts against both), exact when creates race.
import Kernel, { RateLimitError } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let admin: Kernel;
const as = (project: string) => ({ 'x-kernel-project-id': project });

beforeAll(async () => {
  svc = await startTestService({ standby: 0 });
  admin = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

const create = (project?: string) => svc.call('POST', '/browsers', { body: { headless: true }, headers: project ? as(project) : {} });
const end = (id: string, project?: string) => svc.call('DELETE', `/browsers/${id}`, { headers: project ? as(project) : {} });

describe('project limits', () => {
  it('reads and sets a project’s limits; 0 or null removes a cap', async () => {
    const p = await admin.projects.create({ name: 'limits-rw' });
    expect(await admin.projects.limits.retrieve(p.id)).toEqual({ max_concurrent_sessions: null, max_concurrent_invocations: null, max_pooled_sessions: null });
    expect(await admin.projects.limits.update(p.id, { max_concurrent_sessions: 4, max_concurrent_invocations: 2 })).toEqual({
      max_concurrent_sessions: 4,
      max_concurrent_invocations: 2,
      max_pooled_sessions: null,
    });
    expect((await admin.projects.limits.update('limits-rw', {})).max_concurrent_sessions).toBe(4);
    expect((await admin.projects.limits.update(p.id, { max_concurrent_sessions: 0 })).max_concurrent_sessions).toBeNull();
    expect((await admin.projects.limits.update(p.id, { max_concurrent_invocations: null })).max_concurrent_invocations).toBeNull();
  });

  it('admits exactly the project limit when creates race, and names the project limit', async () => {
    const p = await admin.projects.create({ name: 'limits-race' });
    const other = await admin.projects.create({ name: 'limits-other' });
    await admin.projects.limits.update(p.id, { max_concurrent_sessions: 2 });
    const results = await Promise.all(Array.from({ length: 8 }, () => create(p.id)));
    const admitted = results.filter((r) => r.status === 200);
    try {
      expect(admitted).toHaveLength(2);
      for (const r of results.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('concurrency_limit_exceeded');
        expect(r.body.message).toContain(`project '${p.id}' has max_concurrent_sessions 2`);
        expect(r.body.details).toEqual([{ code: 'project_limit', message: r.body.message }]);
      }
      await expect(new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID: p.id }).browsers.create({ headless: true })).rejects.toBeInstanceOf(
        RateLimitError,
      );
      // Other projects and the default scope have their own room.
      const elsewhere = await create(other.id);
      expect(elsewhere.status).toBe(200);
      const unscoped = await create();
      expect(unscoped.status).toBe(200);
      await end(elsewhere.body.session_id, other.id);
      await end(unscoped.body.session_id);
      // An ended session frees its place.
      await end(admitted[0]!.body.session_id, p.id);
      const again = await create(p.id);
      expect(again.status).toBe(200);
      admitted[0] = again;
    } finally {
      await Promise.all(admitted.map((r) => end(r.body.session_id, p.id)));
    }
  }, 120_000);

  it('counts the project’s pool sizes as reservations', async () => {
    const p = await admin.projects.create({ name: 'limits-pools' });
    await admin.projects.limits.update(p.id, { max_concurrent_sessions: 2 });
    const one = await create(p.id);
    expect(one.status).toBe(200);
    try {
      const big = await svc.call('POST', '/browser_pools', { body: { size: 2 }, headers: as(p.id) });
      expect(big.status).toBe(429);
      expect(big.body.message).toContain('cannot reserve 2 more pooled browsers');
      expect(big.body.message).toContain('1 on-demand session, 0 reserved by browser pools');
      const pool = await svc.call('POST', '/browser_pools', { body: { size: 1, name: 'p1' }, headers: as(p.id) });
      expect(pool.status).toBe(200);
      expect((await create(p.id)).status).toBe(429);
      expect((await svc.call('PATCH', '/browser_pools/p1', { body: { size: 2 }, headers: as(p.id) })).status).toBe(429);
      // The default scope's pools are not the project's.
      const outside = await svc.call('POST', '/browser_pools', { body: { size: 1, name: 'outside' } });
      expect(outside.status).toBe(200);
      await svc.call('DELETE', '/browser_pools/outside', { body: { force: true } });
      await svc.call('DELETE', '/browser_pools/p1', { body: { force: true }, headers: as(p.id) });
    } finally {
      await end(one.body.session_id, p.id);
    }
  }, 60_000);

  it('counts a create against the org limit too, and says which limit refused it', async () => {
    const p = await admin.projects.create({ name: 'limits-both' });
    await admin.projects.limits.update(p.id, { max_concurrent_sessions: 5 });
    await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: 2 } });
    const started = [await create(p.id), await create()];
    try {
      expect(started.map((r) => r.status)).toEqual([200, 200]);
      const over = await create(p.id);
      expect(over.status).toBe(429);
      expect(over.body.message).toContain("the organization's max_concurrent_sessions is 2");
      expect(over.body.details[0].code).toBe('org_limit');
    } finally {
      await end(started[0]!.body.session_id, p.id);
      await end(started[1]!.body.session_id);
      await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: null } });
    }
  });
});

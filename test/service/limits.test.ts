// The unified concurrency limit: on-demand sessions plus pool reservations, exact under races; and the
// organization's default cap for projects without their own.
import Kernel, { BadRequestError, RateLimitError } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const setLimit = async (body: object) => {
  const res = await svc.call('PATCH', '/org/limits', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('org limits', () => {
  it('reads and sets limits; null or 0 removes the limit (read back as 0); max_pooled_sessions is stored and echoed', async () => {
    const none = { max_concurrent_sessions: 0, max_pooled_sessions: null, default_project_max_concurrent_sessions: null };
    expect((await svc.call('GET', '/org/limits')).body).toEqual(none);
    expect(await setLimit({ max_concurrent_sessions: 7, max_pooled_sessions: 3 })).toEqual({ ...none, max_concurrent_sessions: 7, max_pooled_sessions: 3 });
    expect(await setLimit({})).toEqual({ ...none, max_concurrent_sessions: 7, max_pooled_sessions: 3 });
    expect(await setLimit({ max_concurrent_sessions: 0 })).toEqual({ ...none, max_pooled_sessions: 3 });
    expect(await setLimit({ max_concurrent_sessions: 5 })).toEqual({ ...none, max_concurrent_sessions: 5, max_pooled_sessions: 3 });
    expect(await setLimit({ max_concurrent_sessions: null, max_pooled_sessions: null })).toEqual(none);
    const bad = await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: -1, default_project_max_concurrent_sessions: 'two' } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['body.default_project_max_concurrent_sessions', 'body.max_concurrent_sessions']);
  });

  it('reads and sets default_project_max_concurrent_sessions with the SDK; it may not exceed the organization limit', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    try {
      const limits = await kernel.organization.limits.retrieve();
      // The SDK types max_concurrent_sessions as a number: never null on the wire.
      expect(typeof limits.max_concurrent_sessions).toBe('number');
      expect(limits.default_project_max_concurrent_sessions).toBeNull();
      expect(await kernel.organization.limits.update({ default_project_max_concurrent_sessions: 4 })).toMatchObject({ max_concurrent_sessions: 0, default_project_max_concurrent_sessions: 4 });
      expect((await kernel.organization.limits.retrieve()).default_project_max_concurrent_sessions).toBe(4);
      expect((await kernel.organization.limits.update({})).default_project_max_concurrent_sessions).toBe(4);

      // Above the organization limit: refused, naming the field; in one request with a higher limit: fine.
      await setLimit({ max_concurrent_sessions: 6 });
      const over = await svc.call('PATCH', '/org/limits', { body: { default_project_max_concurrent_sessions: 7 } });
      expect(over.status).toBe(400);
      expect(over.body.details.map((d: { field: string }) => d.field)).toEqual(['body.default_project_max_concurrent_sessions']);
      await expect(kernel.organization.limits.update({ default_project_max_concurrent_sessions: 7 })).rejects.toBeInstanceOf(BadRequestError);
      expect(await setLimit({ max_concurrent_sessions: 8, default_project_max_concurrent_sessions: 7 })).toMatchObject({ max_concurrent_sessions: 8, default_project_max_concurrent_sessions: 7 });
      // Lowering the limit under the default is refused the same way, naming the limit.
      const under = await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: 3 } });
      expect(under.status).toBe(400);
      expect(under.body.details.map((d: { field: string }) => d.field)).toEqual(['body.max_concurrent_sessions']);

      // 0 or null removes it.
      expect((await kernel.organization.limits.update({ default_project_max_concurrent_sessions: 0 })).default_project_max_concurrent_sessions).toBeNull();
      await kernel.organization.limits.update({ default_project_max_concurrent_sessions: 2 });
      expect((await kernel.organization.limits.update({ default_project_max_concurrent_sessions: null })).default_project_max_concurrent_sessions).toBeNull();
    } finally {
      await setLimit({ max_concurrent_sessions: null, default_project_max_concurrent_sessions: null });
    }
  });

  it('holds a project without a cap of its own to the default, existing and new projects alike; its own cap wins', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const existing = await kernel.projects.create({ name: 'default-capped-existing' });
    await kernel.organization.limits.update({ default_project_max_concurrent_sessions: 1 });
    const created = await kernel.projects.create({ name: 'default-capped-new' });
    const own = await kernel.projects.create({ name: 'own-cap' });
    await kernel.projects.limits.update(own.id, { max_concurrent_sessions: 2 });
    const started: { id: string; project: string }[] = [];
    const inProject = (project: string) => new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID: project });
    try {
      for (const project of [existing.id, created.id]) {
        // The project's own limits still read as overrides: none.
        expect((await kernel.projects.limits.retrieve(project)).max_concurrent_sessions).toBeNull();
        const first = await inProject(project).browsers.create({ headless: true });
        started.push({ id: first.session_id, project });
        const refused = await svc.call('POST', '/browsers', { body: { headless: true }, headers: { 'x-kernel-project-id': project } });
        expect(refused.status).toBe(429);
        expect(refused.body.code).toBe('concurrency_limit_exceeded');
        expect(refused.body.message).toContain(`project '${project}' has max_concurrent_sessions 1 (the organization's default_project_max_concurrent_sessions`);
        expect(refused.body.details).toEqual([{ code: 'project_limit', message: refused.body.message }]);
        await expect(inProject(project).browsers.create({ headless: true })).rejects.toBeInstanceOf(RateLimitError);
      }
      // A project's own cap is above the default: it gets two.
      for (let i = 0; i < 2; i++) started.push({ id: (await inProject(own.id).browsers.create({ headless: true })).session_id, project: own.id });
      expect((await svc.call('POST', '/browsers', { body: { headless: true }, headers: { 'x-kernel-project-id': own.id } })).body.message).toContain(
        `project '${own.id}' has max_concurrent_sessions 2 and`,
      );
      // The organisation's default scope is no project: the default does not apply there.
      const unscoped = await kernel.browsers.create({ headless: true });
      started.push({ id: unscoped.session_id, project: '' });
      // Removing the default frees the projects at once.
      await kernel.organization.limits.update({ default_project_max_concurrent_sessions: 0 });
      const second = await inProject(existing.id).browsers.create({ headless: true });
      started.push({ id: second.session_id, project: existing.id });
    } finally {
      await kernel.organization.limits.update({ default_project_max_concurrent_sessions: null });
      await Promise.all(started.map((s) => svc.call('DELETE', `/browsers/${s.id}`, { headers: s.project ? { 'x-kernel-project-id': s.project } : {} })));
    }
  }, 120_000);

  it('admits exactly the limit when 50 creates race', async () => {
    await setLimit({ max_concurrent_sessions: 10 });
    try {
      const results = await Promise.all(Array.from({ length: 50 }, () => svc.call('POST', '/browsers', { body: { headless: true } })));
      const admitted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(admitted).toHaveLength(10);
      expect(refused).toHaveLength(40);
      for (const r of refused) {
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('concurrency_limit_exceeded');
        expect(r.body.message).toContain('max_concurrent_sessions is 10');
      }
      expect((await svc.call('GET', '/browsers?limit=100')).body).toHaveLength(10);
      await Promise.all(admitted.map((r) => svc.call('DELETE', `/browsers/${r.body.session_id}`)));
      const again = await svc.call('POST', '/browsers');
      expect(again.status).toBe(200);
      await svc.call('DELETE', `/browsers/${again.body.session_id}`);
    } finally {
      await setLimit({ max_concurrent_sessions: null });
    }
  }, 120_000);

  it('counts pool sizes as reservations when creating sessions and creating or growing pools', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    await setLimit({ max_concurrent_sessions: 3 });
    try {
      await kernel.browserPools.create({ name: 'reserved', size: 2 });
      const one = await svc.call('POST', '/browsers');
      expect(one.status).toBe(200);
      const over = await svc.call('POST', '/browsers');
      expect(over.status).toBe(429);
      expect(over.body.message).toContain('1 on-demand session, 2 reserved by browser pools');
      await expect(kernel.browsers.create({ headless: true })).rejects.toBeInstanceOf(RateLimitError);
      const pool = await svc.call('POST', '/browser_pools', { body: { size: 1 } });
      expect(pool.status).toBe(429);
      expect(pool.body.code).toBe('concurrency_limit_exceeded');
      expect((await svc.call('PATCH', '/browser_pools/reserved', { body: { size: 3 } })).status).toBe(429);
      // Idle pool browsers are not sessions the limit counts one by one: the reservation already covers them.
      await eventually(async () => ((await kernel.browserPools.retrieve('reserved')).available_count === 2 ? true : undefined), 30_000);
      const leased = await kernel.browserPools.acquire('reserved', {});
      expect(leased.pool?.name).toBe('reserved');

      await svc.call('DELETE', `/browsers/${one.body.session_id}`);
      expect((await svc.call('PATCH', '/browser_pools/reserved', { body: { size: 3 } })).status).toBe(200);
      expect((await svc.call('POST', '/browsers')).status).toBe(429);
      // Lowering the limit below what runs ends nothing.
      await setLimit({ max_concurrent_sessions: 1 });
      expect((await kernel.browserPools.retrieve('reserved')).browser_pool_config.size).toBe(3);
      await kernel.browserPools.delete('reserved', { force: true });
      expect((await svc.call('POST', '/browser_pools', { body: { size: 1, name: 'fits' } })).status).toBe(200);
      await kernel.browserPools.delete('fits');
    } finally {
      await setLimit({ max_concurrent_sessions: null });
    }
  });

  it('takes the limit from ServiceOptions.maxConcurrentSessions', async () => {
    const limited = await startTestService({ maxConcurrentSessions: 1, standby: 0 });
    try {
      expect((await limited.call('GET', '/org/limits')).body.max_concurrent_sessions).toBe(1);
      const first = await limited.call('POST', '/browsers');
      expect(first.status).toBe(200);
      expect((await limited.call('POST', '/browsers')).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

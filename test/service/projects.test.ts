// /org/projects through the hosted SDK and raw HTTP: CRUD, soft delete only when empty, project-scoped
// keys and the X-Kernel-Project-Id header, archived projects, the deprecated PATCH /projects/{id}.
import Kernel, { ConflictError, NotFoundError, PermissionDeniedError } from '@onkernel/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockFrom, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let admin: Kernel;
const sdk = (apiKey: string, projectID?: string) => new Kernel({ apiKey, baseURL: svc.baseUrl, maxRetries: 0, projectID });
const as = (key: string, project?: string) => ({ authorization: `Bearer ${key}`, ...(project ? { 'x-kernel-project-id': project } : {}) });

beforeAll(async () => {
  // Before the deprecated PATCH /projects/{id} is removed, whatever day the suite runs on.
  svc = await startTestService({ standby: 0, now: clockFrom('2026-06-01T12:00:00Z') });
  admin = sdk(svc.apiKey);
});
afterAll(async () => {
  await svc.close();
});

describe('projects', () => {
  it('creates, retrieves by id or name, renames, archives and lists', async () => {
    const created = await admin.projects.create({ name: 'Staging' });
    expect(created).toEqual({ id: expect.stringMatching(/^[a-z0-9]{24}$/), name: 'Staging', status: 'active', created_at: expect.any(String), updated_at: created.created_at });
    expect(await admin.projects.retrieve(created.id)).toEqual(created);
    expect((await admin.projects.retrieve('Staging')).id).toBe(created.id);
    await expect(admin.projects.create({ name: 'staging' })).rejects.toBeInstanceOf(ConflictError);

    const renamed = await admin.projects.update(created.id, { name: 'staging-2', status: 'archived' });
    expect(renamed).toMatchObject({ id: created.id, name: 'staging-2', status: 'archived' });
    await admin.projects.create({ name: 'other' });
    const names: string[] = [];
    for await (const p of admin.projects.list({ limit: 1 })) names.push(p.name);
    expect(names).toEqual(['staging-2', 'other']);
    expect((await svc.call('GET', '/org/projects?query=AGING')).body.map((p: { name: string }) => p.name)).toEqual(['staging-2']);
    expect((await svc.call('GET', '/org/projects?name=OTHER')).body.map((p: { name: string }) => p.name)).toEqual(['other']);

    for (const [method, path, body, field] of [
      ['POST', '/org/projects', {}, 'body.name'],
      ['POST', '/org/projects', { name: 'x'.repeat(256) }, 'body.name'],
      ['PATCH', `/org/projects/${created.id}`, { status: 'gone' }, 'body.status'],
      ['PATCH', `/org/projects/${created.id}/limits`, { max_concurrent_sessions: -1 }, 'body.max_concurrent_sessions'],
      ['PATCH', `/org/projects/${created.id}/limits`, { max_pooled_sessions: 2 }, 'body.max_pooled_sessions'],
    ] as const) {
      const res = await svc.call(method, path, { body });
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    await expect(admin.projects.retrieve('missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('soft-deletes a project only when it is empty, and its keys with it', async () => {
    const project = await admin.projects.create({ name: 'to-delete' });
    const key = await admin.apiKeys.create({ name: 'scoped', project_id: project.id });
    expect(key).toMatchObject({ project_id: project.id, project_name: 'to-delete' });
    const browser = await sdk(key.key).browsers.create({ headless: true });
    const busy = await svc.call('DELETE', `/org/projects/${project.id}`);
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ code: 'conflict', message: "project 'to-delete' is not empty (1 in browsers); delete its resources first" });
    await sdk(key.key).browsers.deleteByID(browser.session_id);
    // Every kind of project resource counts, those of later issues too (any table with a project_id).
    const profile = await sdk(key.key).profiles.create({ name: 'kept' });
    await expect(admin.projects.delete(project.id)).rejects.toBeInstanceOf(ConflictError);
    expect((await svc.call('DELETE', `/org/projects/${project.id}`)).body.message).toContain('(1 in profiles)');
    await sdk(key.key).profiles.delete(profile.id);

    await admin.projects.delete(project.id);
    await expect(admin.projects.retrieve(project.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await svc.call('GET', '/browsers', { headers: as(key.key) })).status).toBe(401);
    expect((await admin.apiKeys.retrieve(key.id, { include_deleted: true })).deleted_at).not.toBeNull();
    // The name is free again.
    expect((await admin.projects.create({ name: 'to-delete' })).id).not.toBe(project.id);
  });

  it('keeps each project’s resources to keys of that project and to the header’s choice', async () => {
    const a = await admin.projects.create({ name: 'iso-a' });
    const b = await admin.projects.create({ name: 'iso-b' });
    const keyA = (await admin.apiKeys.create({ name: 'a', project_id: a.id })).key;
    const keyB = (await admin.apiKeys.create({ name: 'b', project_id: 'iso-b' })).key;
    const inA = await sdk(keyA).browsers.create({ headless: true, name: 'shared-name' });
    const inB = await sdk(keyB).browsers.create({ headless: true, name: 'shared-name' });
    try {
      expect(inA.session_id).not.toBe(inB.session_id);
      const list = async (key: string, project?: string) =>
        ((await svc.call('GET', '/browsers', { headers: as(key, project) })).body as { session_id: string }[]).map((s) => s.session_id);
      expect(await list(keyA)).toEqual([inA.session_id]);
      expect(await list(keyB)).toEqual([inB.session_id]);
      expect(await list(svc.apiKey)).toEqual([]);
      expect(await list(svc.apiKey, a.id)).toEqual([inA.session_id]);
      expect(await list(svc.apiKey, 'iso-b')).toEqual([inB.session_id]);
      await expect(sdk(keyB).browsers.retrieve(inA.session_id)).rejects.toBeInstanceOf(NotFoundError);
      expect((await sdk(svc.apiKey, a.id).browsers.retrieve('shared-name')).session_id).toBe(inA.session_id);

      // A scoped key may name its own project in the header, no other.
      expect(await list(keyA, a.id)).toEqual([inA.session_id]);
      const other = await svc.call('GET', '/browsers', { headers: as(keyA, b.id) });
      expect(other.status).toBe(403);
      expect(other.body.code).toBe('forbidden');
      const unknown = await svc.call('GET', '/browsers', { headers: as(svc.apiKey, 'nope') });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 'not_found', message: "project 'nope' not found" });
    } finally {
      await sdk(keyA).browsers.deleteByID(inA.session_id);
      await sdk(keyB).browsers.deleteByID(inB.session_id);
    }
  });

  it('lets only org-wide keys manage keys, projects, org limits and the audit log', async () => {
    const p = await admin.projects.create({ name: 'no-admin' });
    const scoped = await admin.apiKeys.create({ name: 'scoped', project_id: p.id });
    const client = sdk(scoped.key);
    await expect(client.apiKeys.create({ name: 'escalate' })).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(client.apiKeys.delete(scoped.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(client.projects.list()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(client.projects.limits.update(p.id, { max_concurrent_sessions: 100 })).rejects.toBeInstanceOf(PermissionDeniedError);
    for (const [method, path] of [
      ['PATCH', '/org/limits'],
      ['GET', '/org/api_keys'],
      ['POST', `/org/api_keys/${scoped.id}/rotate`],
      ['PATCH', `/projects/${p.id}`],
      ['GET', '/audit-logs?start=2026-01-01T00:00:00Z&end=2026-01-02T00:00:00Z'],
    ] as const) {
      const res = await svc.call(method, path, { headers: as(scoped.key), body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.message).toContain('needs an organization-wide key');
    }
    // HEAD routes Fastify adds for GETs are guarded as well.
    expect((await svc.call('HEAD', '/org/api_keys', { headers: as(scoped.key) })).status).toBe(403);
    expect((await svc.call('HEAD', '/org/api_keys')).status).toBe(200);
    // Its own identity and its project's resources are its business.
    expect((await svc.call('GET', '/auth/context', { headers: as(scoped.key) })).status).toBe(200);
    expect((await svc.call('GET', '/browser_pools', { headers: as(scoped.key) })).status).toBe(200);
  });

  it('keeps an archived project readable and deletable, not changeable', async () => {
    const p = await admin.projects.create({ name: 'frozen' });
    const key = (await admin.apiKeys.create({ name: 'frozen', project_id: p.id })).key;
    const browser = await sdk(key).browsers.create({ headless: true });
    await admin.projects.update(p.id, { status: 'archived' });
    for (const [key_, project] of [[key, undefined], [svc.apiKey, p.id]] as const) {
      const create = await svc.call('POST', '/browsers', { headers: as(key_, project), body: {} });
      expect(create.status).toBe(409);
      expect(create.body.code).toBe('project_archived');
      expect(create.body.message).toContain(`PATCH /org/projects/${p.id}`);
      expect((await svc.call('GET', `/browsers/${browser.session_id}`, { headers: as(key_, project) })).status).toBe(200);
    }
    expect((await svc.call('DELETE', `/browsers/${browser.session_id}`, { headers: as(key) })).status).toBe(204);
    // An admin client configured for the archived project can still reactivate it: administration ignores the header.
    expect((await sdk(svc.apiKey, p.id).projects.update(p.id, { status: 'active' })).status).toBe('active');
    expect((await svc.call('GET', '/browser_pools', { headers: as(key) })).status).toBe(200);
  });

  it('serves the deprecated PATCH /projects/{id_or_name} with Deprecation and Sunset headers', async () => {
    const p = await admin.projects.create({ name: 'legacy' });
    const res = await svc.call('PATCH', '/projects/legacy', { body: { name: 'legacy-2' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: p.id, name: 'legacy-2', status: 'active' });
    expect(res.headers.get('deprecation')).toBe('@1779753600');
    expect(res.headers.get('sunset')).toBe('Tue, 24 Nov 2026 00:00:00 GMT');
    expect(res.headers.get('link')).toBe(`</org/projects/${p.id}>; rel="successor-version"`);
  });
});

describe('the deprecated route after its removal date', () => {
  it('answers 410 with an Error body naming the replacement', async () => {
    const later = await startTestService({ standby: 0, now: clockFrom('2026-11-24T00:00:00Z') });
    try {
      const res = await later.call('PATCH', '/projects/anything', { body: { name: 'x' } });
      expect(res.status).toBe(410);
      expect(res.body).toEqual({
        code: 'gone',
        message: 'PATCH /projects/{id_or_name} was removed on 2026-11-24; use PATCH /org/projects/{id_or_name}',
      });
      expect(res.headers.get('link')).toContain('successor-version');
      // The replacement works.
      const p = await later.call('POST', '/org/projects', { body: { name: 'x' } });
      expect((await later.call('PATCH', `/org/projects/${p.body.id}`, { body: { name: 'y' } })).body.name).toBe('y');
    } finally {
      await later.close();
    }
  });
});

describe('projects disabled for the organization', () => {
  it('answers 404 projects_disabled to every project operation', async () => {
    const off = await startTestService({ standby: 0, projectsEnabled: false, now: clockFrom('2026-06-01T12:00:00Z') });
    try {
      for (const [method, path, body] of [
        ['POST', '/org/projects', { name: 'p' }],
        ['GET', '/org/projects', undefined],
        ['GET', '/org/projects/p', undefined],
        ['PATCH', '/org/projects/p', { name: 'q' }],
        ['DELETE', '/org/projects/p', undefined],
        ['GET', '/org/projects/p/limits', undefined],
        ['PATCH', '/org/projects/p/limits', {}],
        ['PATCH', '/projects/p', { name: 'q' }],
        ['POST', '/org/api_keys', { name: 'k', project_id: 'p' }],
      ] as const) {
        const res = await off.call(method, path, { body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body, `${method} ${path}`).toEqual({ code: 'projects_disabled', message: 'projects are disabled for this organization' });
      }
      const header = await off.call('GET', '/browsers', { headers: { 'x-kernel-project-id': 'p' } });
      expect(header.status).toBe(404);
      expect(header.body.code).toBe('projects_disabled');
      // Org-wide keys and everything else work as before.
      expect((await off.call('POST', '/org/api_keys', { body: { name: 'k' } })).status).toBe(200);
      expect((await off.call('GET', '/browsers')).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});

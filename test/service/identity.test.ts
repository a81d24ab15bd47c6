// GET /auth/context: the authenticating key, its own scope, the project the request acts in, the org.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let dataDir: string;
let svc: TestService;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'bcs-identity-'));
  svc = await startTestService({ dataDir, standby: 0 });
});
afterAll(async () => {
  await svc.close();
  await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
});

const context = async (headers: Record<string, string> = {}, on = svc) => {
  const res = await on.call('GET', '/auth/context', { headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe('GET /auth/context', () => {
  it('describes an org-wide key, and the project the header picks', async () => {
    const me = await context();
    expect(me).toEqual({
      authentication: { credential_id: expect.stringMatching(/^[a-z0-9]{24}$/), method: 'api_key', source: 'api_key' },
      authorization: { credential_scope: { project_id: null }, effective_scope: { project_id: null } },
      organization: { id: expect.stringMatching(/^[0-9a-f]{24}$/) },
      principal: { id: me.authentication.credential_id, type: 'api_key' },
    });
    const keys = (await svc.call('GET', '/org/api_keys')).body as { id: string; name: string }[];
    expect(keys.find((k) => k.id === me.principal.id)?.name).toBe('admin');

    const project = (await svc.call('POST', '/org/projects', { body: { name: 'picked' } })).body;
    const picked = await context({ 'x-kernel-project-id': 'picked' });
    expect(picked.authorization).toEqual({ credential_scope: { project_id: null }, effective_scope: { project_id: project.id } });
  });

  it('describes a project-scoped key', async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'scoped' } })).body;
    const key = (await svc.call('POST', '/org/api_keys', { body: { name: 'scoped', project_id: project.id } })).body;
    const ctx = await context({ authorization: `Bearer ${key.key}` });
    expect(ctx.principal).toEqual({ id: key.id, type: 'api_key' });
    expect(ctx.authorization).toEqual({ credential_scope: { project_id: project.id }, effective_scope: { project_id: project.id } });
    expect(JSON.stringify(ctx)).not.toContain(key.key);
  });

  it('keeps the organization id across restarts and rejects unknown query parameters', async () => {
    const before = (await context()).organization.id;
    const { apiKey } = svc;
    await svc.close();
    svc = await startTestService({ dataDir, apiKey, standby: 0 });
    expect((await context()).organization.id).toBe(before);
    const bad = await svc.call('GET', '/auth/context?verbose=1');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('querystring.verbose');
  });
});

// The hosted wire only (ServiceOptions.strictWire, `bcs serve --strict-wire`): what the schemas mark as ours
// is hidden as the hosted service would show it. Two real services side by side, one of them strict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTENSION } from '../../src/api/schemas/common.js';
import type { RouteEntry } from '../../src/service/auth.js';
import { leaveOutOurs } from '../../src/service/strict-wire.js';
import { replaySkipReason, sleep } from '../helpers/replays.js';
import { startTestService, type TestService } from '../helpers/service.js';

let strict: TestService;
let full: TestService;

beforeAll(async () => {
  [strict, full] = await Promise.all([startTestService({ strictWire: true }), startTestService()]);
});
afterAll(async () => {
  await Promise.all([strict?.close(), full?.close()]);
});

const isOurs = (r: RouteEntry) => (r.schema as Record<string, unknown> | undefined)?.[EXTENSION] === true;
const pathOf = (r: RouteEntry) => r.url.replace(/:\w+/g, 'x');
const WINDOW = `start=${new Date(Date.now() - 3_600_000).toISOString()}&end=${new Date(Date.now() + 60_000).toISOString()}`;

describe('a service serving the hosted wire only', () => {
  it('answers each route of ours as a path no route serves: the same 404, after the same authentication', async () => {
    const ours = strict.routes().filter((r) => isOurs(r) && r.method !== 'HEAD');
    expect(ours.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'POST /browsers/:id/replays/:replay_id/markers',
        'GET /browsers/:id/replays/:replay_id/markers',
        'GET /browsers/:id/replays/:replay_id/markers.vtt',
        'GET /site_configs',
        'POST /site_configs',
        'GET /site_configs/lookup',
        'POST /runs',
        'GET /runs/history',
        'DELETE /runs/:run_id',
        'POST /runs/:run_id/results/:result_id/artifacts',
        'GET /runs/:run_id/artifacts/:artifact_id',
        'GET /browsers/:id/cdp/json/version',
        'POST /browsers/:id/keep',
        'GET /openapi.json',
      ]),
    );
    const never = await strict.call('GET', '/never/a/route');
    expect(never.status).toBe(404);
    for (const r of ours) {
      const path = pathOf(r);
      const body = ['POST', 'PUT', 'PATCH'].includes(r.method) ? {} : undefined;
      const res = await strict.call(r.method, path, { body });
      expect({ route: r.url, status: res.status, body: res.body }).toEqual({
        route: r.url,
        status: 404,
        body: { code: 'not_found', message: `no route ${r.method} ${path}` },
      });
      // Without a key it is refused first, as any path is; a session token is no key here either.
      const bare = await fetch(`${strict.baseUrl}${path}?jwt=whatever`, { method: r.method });
      expect(bare.status, r.url).toBe(401);
    }
    // The full service serves them.
    expect((await full.call('GET', '/site_configs')).status).toBe(200);
    expect((await full.call('GET', '/openapi.json')).status).toBe(200);
  });

  it('leaves fields of ours out of error bodies: details name no field', async () => {
    const bad = { timeout_seconds: 1 };
    const there = await strict.call('POST', '/browsers', { body: bad });
    const here = await full.call('POST', '/browsers', { body: bad });
    expect(there.status).toBe(400);
    expect(there.body).toEqual({ code: 'bad_request', message: here.body.message, details: [{ code: 'invalid_input', message: here.body.message }] });
    expect(here.body.details[0].field).toBe('body.timeout_seconds');
  });

  it('refuses request fields of ours as unknown fields, and takes the hosted ones', async () => {
    const ours = await strict.call('GET', `/audit-logs?${WINDOW}&route=/browsers`);
    expect(ours.status).toBe(400);
    expect(ours.body.message).toBe('querystring.route: unknown field');
    expect((await full.call('GET', `/audit-logs?${WINDOW}&route=/browsers`)).status).toBe(200);
    const hosted = await strict.call('GET', `/audit-logs?${WINDOW}&method=POST&limit=5`);
    expect(hosted.status, JSON.stringify(hosted.body)).toBe(200);
    // An audit record without our key, project and request ids.
    expect(hosted.body.length).toBeGreaterThan(0);
    for (const entry of hosted.body) {
      expect(entry).not.toHaveProperty('api_key_id');
      expect(entry).not.toHaveProperty('project_id');
      expect(entry).not.toHaveProperty('request_id');
      expect(entry).toHaveProperty('route');
    }
  });

  it('answers sessions and command results without fields of ours', async () => {
    const created = await strict.call('POST', '/browsers', { body: { headless: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.session_id as string;
    expect(created.body).not.toHaveProperty('sandboxed');
    const exec = await strict.call('POST', `/browsers/${id}/process/exec`, { body: { command: 'echo', args: ['hi'] } });
    expect(exec.status, JSON.stringify(exec.body)).toBe(200);
    expect(Object.keys(exec.body).sort()).toEqual(['duration_ms', 'exit_code', 'stderr_b64', 'stdout_b64']);
    expect((await strict.call('DELETE', `/browsers/${id}`)).status).toBe(204);
    const ended = await strict.call('GET', `/browsers/${id}?include_deleted=true`);
    expect(ended.body.deleted_at).toBeTruthy();
    for (const field of ['end_reason', 'end_detail', 'sandboxed']) expect(ended.body).not.toHaveProperty(field);
  });

  it.skipIf(replaySkipReason)('answers replays as the hosted replay object: no duration, markers or end reason', async () => {
    const created = await strict.call('POST', '/browsers', { body: { headless: true, viewport: { width: 640, height: 480 } } });
    const id = created.body.session_id as string;
    const started = await strict.call('POST', `/browsers/${id}/replays`, { body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const hosted = ['finished_at', 'replay_id', 'replay_view_url', 'started_at'];
    expect(Object.keys(started.body).sort()).toEqual(hosted);
    await sleep(500);
    const stopped = await strict.call('POST', `/browsers/${id}/replays/${started.body.replay_id}/stop`);
    expect(Object.keys(stopped.body).sort()).toEqual(hosted);
    const list = await strict.call('GET', `/browsers/${id}/replays`);
    expect(list.body.map((r: object) => Object.keys(r).sort())).toEqual([hosted]);
    const video = await fetch(`${strict.baseUrl}/browsers/${id}/replays/${started.body.replay_id}`, { headers: { authorization: `Bearer ${strict.apiKey}` } });
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    await strict.call('DELETE', `/browsers/${id}`);
  });

  it('marks what is ours in the full service\'s OpenAPI document', async () => {
    const doc = (await full.call('GET', '/openapi.json')).body;
    expect(doc.paths['/site_configs'].get[EXTENSION]).toBe(true);
    expect(doc.paths['/browsers/{id}/replays/{replay_id}/markers'].post[EXTENSION]).toBe(true);
    expect(doc.paths['/browsers/{id}/replays'].post[EXTENSION]).toBeUndefined();
    const exec = doc.paths['/browsers/{id}/process/exec'].post.responses['200'].content['application/json'].schema;
    expect(exec.properties.timed_out[EXTENSION]).toBe(true);
    expect(exec.properties.exit_code[EXTENSION]).toBeUndefined();
  });
});

describe('leaving fields of ours out of a value', () => {
  const ours = { type: 'string', [EXTENSION]: true };
  const schema = {
    type: 'object',
    properties: {
      kept: { type: 'string' },
      mine: ours,
      list: { type: 'array', items: { type: 'object', properties: { a: { type: 'integer' }, b: ours } } },
      frame: { anyOf: [{ type: 'object', properties: { x: ours } }, { type: 'object', properties: { y: { type: 'string' } } }] },
    },
  };

  it('at any depth, through arrays and branches, without touching the original', () => {
    const value = { kept: 'k', mine: 'm', list: [{ a: 1, b: 'b' }, { a: 2 }], frame: { x: 'x', y: 'y' }, other: { mine: 'not described' } };
    const copy = structuredClone(value);
    expect(leaveOutOurs(value, schema)).toEqual({ kept: 'k', list: [{ a: 1 }, { a: 2 }], frame: { y: 'y' }, other: { mine: 'not described' } });
    expect(value).toEqual(copy);
  });

  it('passes through what the schema does not describe as an object', () => {
    expect(leaveOutOurs('text', schema)).toBe('text');
    expect(leaveOutOurs(null, schema)).toBeNull();
    expect(leaveOutOurs({ mine: 1 }, undefined)).toEqual({ mine: 1 });
  });
});

// The auth matrix, over every route the app registers (taken from Fastify, so new routes are covered
// without touching this file): no key, a wrong key, an expired key and a deleted key all get 401 with the
// Error body; a project-scoped key sees nothing of another project's browsers and pools, answered exactly
// as if they did not exist. A session's token authorises only the routes that take it, for that session.
import { request } from 'node:http';
import { ZipFile } from 'yazl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../helpers/app-zip.js';
import { ROOT } from '../helpers/cli.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const credentials: Record<string, string | undefined> = { none: undefined, wrong: 'bcs_this-key-was-never-issued-anywhere' };

beforeAll(async () => {
  // With the runner, so a monitor suite can be deployed (paused: none of its checks runs here).
  svc = await startTestService({ standby: 0, monitorRunner: { packageDir: ROOT } });
  const expiring = (await svc.call('POST', '/org/api_keys', { body: { name: 'expired' } })).body;
  await svc.call('POST', `/org/api_keys/${expiring.id}/rotate`, { body: { expire_in_days: 0 } });
  credentials.expired = expiring.key;
  const doomed = (await svc.call('POST', '/org/api_keys', { body: { name: 'deleted' } })).body;
  await svc.call('DELETE', `/org/api_keys/${doomed.id}`);
  credentials.deleted = doomed.key;
});
afterAll(async () => {
  await svc.close();
});

/** A concrete path for a route pattern: each parameter filled in by `fill` (by name). */
const pathOf = (url: string, fill: (param: string) => string) =>
  url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => encodeURIComponent(fill(name))).replace(/\*/g, 'x');

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  /** One schema for every item, or one per position (a tuple, `[x, y]`). */
  items?: Schema | Schema[];
  minItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: { if?: Schema; then?: Schema }[];
  minimum?: number;
  pattern?: string;
  minLength?: number;
};
const STRING_CANDIDATES = ['/tmp/x', 'x', 'about:blank', 'https://example.com/', '00000000-0000-0000-0000-000000000000', '0755', '2026-01-01T00:00:00Z'];

/**
 * The smallest value a JSON Schema accepts, as far as this generic walk can tell: with it a request gets
 * past validation to the handler, where the scope is checked, whatever new route comes along.
 */
function sample(schema: Schema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.enum) return schema.enum[0];
  const branch = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (branch) return sample(branch);
  const type = [schema.type ?? 'object'].flat().find((t) => t !== 'null');
  switch (type) {
    case 'string': {
      const pattern = schema.pattern ? new RegExp(schema.pattern) : undefined;
      return STRING_CANDIDATES.find((c) => (!pattern || pattern.test(c)) && c.length >= (schema.minLength ?? 0)) ?? 'x';
    }
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      if (Array.isArray(schema.items)) return schema.items.map(sample);
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items as Schema | undefined));
    default: {
      // `if/then` pairs (a tagged union): the fields the chosen tag requires are required too.
      const chosen = (schema.required ?? []).map((name) => [name, sample(schema.properties?.[name])] as const);
      const value = Object.fromEntries(chosen);
      for (const rule of schema.allOf ?? []) {
        const matches = Object.entries(rule.if?.properties ?? {}).every(([k, v]) => value[k] === v.const);
        for (const name of matches ? (rule.then?.required ?? []) : []) value[name] ??= sample(schema.properties?.[name]);
      }
      return value;
    }
  }
}

/** A raw request with a deadline: a broken scope could otherwise open a stream that never ends. */
async function send(method: string, path: string, key: string | undefined, headers: Record<string, string> = {}, json = '{}') {
  const body = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? json : undefined;
  const res = await fetch(svc.baseUrl + path, {
    method,
    headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** The status of a CDP or BiDi WebSocket upgrade (the routes outside Fastify's table). */
function upgradeStatus(path: string, key: string | undefined): Promise<number> {
  const url = new URL(svc.baseUrl + path);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('every route refuses requests without a live key', () => {
  it('covers the whole route table', () => {
    const urls = new Set(svc.routes().map((r) => `${r.method} ${r.url}`));
    // A sample across groups, so an empty or partial table cannot pass the matrix below.
    for (const route of ['POST /browsers', 'GET /browser_pools', 'POST /browsers/:id/process/exec', 'POST /browsers/:id/keep', 'POST /browsers/:id/recording/codegen', 'GET /org/api_keys', 'PATCH /projects/:id_or_name', 'GET /audit-logs', 'GET /auth/context', 'DELETE /runs/:run_id']) {
      expect(urls, route).toContain(route);
    }
    expect(urls.size).toBeGreaterThan(60);
  });

  it.each(['none', 'wrong', 'expired', 'deleted'])('answers 401 with the Error body to a %s key on every route', async (kind) => {
    const failures: string[] = [];
    for (const { method, url } of svc.routes()) {
      // The hosted login page is opened by a link: its URL's code is its credential (tested below). The
      // console's files carry no data (tested below too), nor does Chromium's protocol descriptor at the root
      // (cdp-protocol.test.ts).
      if (SELF_AUTHENTICATED.test(url) || CONSOLE_FILES.test(url) || url === '/json/protocol') continue;
      const res = await send(method, pathOf(url, () => 'x'), credentials[kind]);
      const body = method === 'HEAD' ? undefined : JSON.parse(res.text);
      const expected = kind === 'none' ? 'missing API key: send Authorization: Bearer <key>' : 'invalid, expired or deleted API key';
      const ok =
        res.status === 401 &&
        res.headers.get('www-authenticate') === 'Bearer' &&
        (method === 'HEAD' || (body.code === 'unauthorized' && body.message === expected && Object.keys(body).length === 2));
      if (!ok) failures.push(`${method} ${url}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(await upgradeStatus('/browsers/x/cdp', credentials[kind])).toBe(401);
    expect(await upgradeStatus('/browsers/x/bidi', credentials[kind])).toBe(401);
  });
});

const SELF_AUTHENTICATED = /^\/auth\/connections\/:id\/hosted$/;
/** The web console's page and assets: the same files for anyone, the key asked for by the page itself. */
const CONSOLE_FILES = /^\/(live\/:id|console\/app\.(js|css))?$/;

describe("the console's files", () => {
  it('are the same with any key or none, and the page holds no data of the organisation', async () => {
    const routes = svc.routes().filter((r) => CONSOLE_FILES.test(r.url) && r.method === 'GET');
    expect(routes.map((r) => r.url).sort()).toEqual(['/', '/console/app.css', '/console/app.js', '/live/:id']);
    for (const { url } of routes) {
      const path = url.replace(':id', 'x');
      const answers = await Promise.all(['none', 'wrong', 'valid'].map((kind) => send('GET', path, kind === 'valid' ? svc.apiKey : credentials[kind])));
      expect(answers.map((a) => a.status), url).toEqual([200, 200, 200]);
      expect(new Set(answers.map((a) => a.text)).size, url).toBe(1);
      expect(answers[0]!.text).not.toContain(svc.apiKey);
    }
  });
});

describe('the hosted login page', () => {
  it('answers 401 to a link without the flow\'s code, whatever key is sent', async () => {
    const routes = svc.routes().filter((r) => SELF_AUTHENTICATED.test(r.url));
    expect(routes.map((r) => r.method).sort()).toEqual(['GET', 'HEAD', 'POST']);
    for (const { method } of routes) {
      for (const kind of ['none', 'wrong', 'valid']) {
        const key = kind === 'valid' ? svc.apiKey : credentials[kind];
        const res = await send(method, '/auth/connections/x/hosted?code=guess', key);
        expect(res.status, `${method} ${kind}`).toBe(401);
        if (method !== 'HEAD') expect(JSON.parse(res.text).code).toBe('unauthorized');
      }
    }
  });
});

/**
 * Routes that take a session's token (`?jwt=`, from its cdp_ws_url) in place of a key: those the SDK sends
 * to the session's base_url without its key, and CDP discovery. A new one belongs here deliberately.
 */
const SESSION_TOKEN = /^\/browsers\/:id\/(curl|curl\/raw|telemetry\/stream|cdp\/json(\/version|\/list|\/protocol)?)$/;

describe('a session token', () => {
  it("authorises its own session's token routes only: another session's token is a 401, and on any other route it is no credential", async () => {
    const a = (await svc.call('POST', '/browsers', { body: {} })).body;
    const b = (await svc.call('POST', '/browsers', { body: {} })).body;
    const tokenOf = (s: { cdp_ws_url: string }) => new URL(s.cdp_ws_url).searchParams.get('jwt')!;
    const failures: string[] = [];
    const tokenRoutes: string[] = [];
    for (const { method, url, schema } of svc.routes()) {
      if (SELF_AUTHENTICATED.test(url) || CONSOLE_FILES.test(url) || url === '/json/protocol') continue;
      const params = (schema?.params as Schema | undefined)?.properties ?? {};
      const path = pathOf(url, (param) => (param === 'id' || param === 'id_or_name' ? a.session_id : String(sample(params[param]))));
      const query = new URLSearchParams(Object.entries((sample(schema?.querystring as Schema) ?? {}) as Record<string, string>));
      const json = JSON.stringify(sample(schema?.body as Schema) ?? {});
      if (SESSION_TOKEN.test(url)) {
        tokenRoutes.push(`${method} ${url}`);
        query.set('jwt', tokenOf(b));
        const res = await send(method, `${path}?${query}`, undefined, {}, json);
        if (res.status !== 401 || (method !== 'HEAD' && JSON.parse(res.text).code !== 'unauthorized')) failures.push(`${method} ${url} (other session's token): ${res.status} ${res.text.slice(0, 160)}`);
      } else {
        query.set('jwt', tokenOf(a));
        const res = await send(method, `${path}?${query}`, undefined, {}, json);
        if (res.status !== 401) failures.push(`${method} ${url} (token where a key is needed): ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(tokenRoutes.filter((r) => !r.startsWith('HEAD ')).sort()).toEqual(
      [
        'DELETE /browsers/:id/curl/raw',
        'GET /browsers/:id/cdp/json',
        'GET /browsers/:id/cdp/json/list',
        'GET /browsers/:id/cdp/json/protocol',
        'GET /browsers/:id/cdp/json/version',
        'GET /browsers/:id/curl/raw',
        'GET /browsers/:id/telemetry/stream',
        'PATCH /browsers/:id/curl/raw',
        'POST /browsers/:id/curl',
        'POST /browsers/:id/curl/raw',
        'PUT /browsers/:id/curl/raw',
      ].sort(),
    );
    await svc.call('DELETE', `/browsers/${a.session_id}`);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
  }, 120_000);
});

/** A minimal unpacked extension, zipped, for the extensions group. */
async function extensionZip(): Promise<Buffer> {
  const zip = new ZipFile();
  zip.addBuffer(Buffer.from(JSON.stringify({ manifest_version: 3, name: 'owned', version: '1.0' })), 'manifest.json');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A deployment of a one-action app in the key's project, and a finished invocation of it. */
async function deployedApp(headers: Record<string, string>): Promise<{ deployments: string; invocations: string }> {
  const form = new FormData();
  const app = "import { Kernel } from '@onkernel/sdk';\nnew Kernel().app('owned-app').action('echo', async (_ctx, p) => p);\n";
  form.append('file', new Blob([new Uint8Array(await zipOf({ 'index.js': app }))]), 'app.zip');
  const res = await fetch(`${svc.baseUrl}/deployments`, { method: 'POST', headers, body: form });
  const deployment = (await res.json()) as { id: string };
  expect(res.status, JSON.stringify(deployment)).toBe(200);
  await eventually(async () => {
    const d = (await svc.call('GET', `/deployments/${deployment.id}`, { headers })).body;
    if (d.status === 'failed') throw new Error(d.status_reason);
    return d.status === 'running' ? true : undefined;
  }, 60_000);
  const invoked = await svc.call('POST', '/invocations', { headers, body: { app_name: 'owned-app', version: 'latest', action_name: 'echo', payload: '1' } });
  expect(invoked.body.status, JSON.stringify(invoked.body)).toBe('succeeded');
  return { deployments: deployment.id, invocations: invoked.body.id };
}

describe('a project-scoped key and another project', () => {
  it('finds nothing of the other project on any route of a project resource', async () => {
    const a = (await svc.call('POST', '/org/projects', { body: { name: 'owner' } })).body;
    const b = (await svc.call('POST', '/org/projects', { body: { name: 'stranger' } })).body;
    const keyA = (await svc.call('POST', '/org/api_keys', { body: { name: 'a', project_id: a.id } })).body.key;
    const keyB = (await svc.call('POST', '/org/api_keys', { body: { name: 'b', project_id: b.id } })).body.key;
    const asA = { authorization: `Bearer ${keyA}` };
    const asB = { authorization: `Bearer ${keyB}` };
    const created = async (path: string, body: object, idField = 'id') => {
      const res = await svc.call('POST', path, { headers: asA, body });
      expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body[idField] as string;
    };
    const upload = async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(await extensionZip())]), 'owned.zip');
      form.append('name', 'owned-extension');
      const res = await fetch(`${svc.baseUrl}/extensions`, { method: 'POST', headers: asA, body: form });
      expect(res.status, 'POST /extensions').toBeLessThan(300);
      return ((await res.json()) as { id: string }).id;
    };
    const monitorSuite = async () => {
      const form = new FormData();
      const manifest = { suite: 'owned-suite', checks: [{ name: 'owned-check', file: 'check.yaml', schedule: { every_seconds: 3600 }, paused: true }] };
      form.append('manifest', JSON.stringify(manifest));
      form.append('file', new Blob([new Uint8Array(await zipOf({ 'check.yaml': 'name: c\nsteps: []\n' }))]), 'suite.zip');
      const res = await fetch(`${svc.baseUrl}/monitors/deployments`, { method: 'POST', headers: asA, body: form });
      expect(res.status, 'POST /monitors/deployments').toBe(200);
      const deployed = (await res.json()) as { checks: { id: string }[] };
      return { 'monitors/checks': deployed.checks[0]!.id, 'monitors/suites': 'owned-suite' };
    };
    // One resource of each kind in project A. A new kind of project resource belongs in this table.
    const owned: Record<string, string> = {
      browsers: await created('/browsers', { name: 'owned' }, 'session_id'),
      browser_pools: await created('/browser_pools', { name: 'owned-pool', size: 1 }),
      profiles: await created('/profiles', { name: 'owned-profile' }),
      proxies: await created('/proxies', { type: 'datacenter', name: 'owned-proxy' }),
      extensions: await upload(),
      credentials: await created('/credentials', { domain: 'owned.test', name: 'owned-credential', values: { username: 'u' } }),
      'auth/connections': await created('/auth/connections', { domain: 'owned.test', profile_name: 'owned-login' }),
      site_configs: await created('/site_configs', { domain: 'owned-site.test' }),
      runs: await created('/runs', { suite: 'owned-suite', trigger: 'ci', started_at: '2026-01-01T00:00:00Z' }),
      ...(await deployedApp(asA)),
      ...(await monitorSuite()),
    };
    await eventually(async () => ((await svc.call('GET', '/browser_pools/owned-pool', { headers: asA })).body.available_count === 1 ? true : undefined), 30_000);

    const groupOf = (url: string) => /^\/((?:auth\/|monitors\/)?[a-z_]+)\/:/.exec(url)?.[1];
    const scoped = svc
      .routes()
      .filter((r) => r.method !== 'HEAD' && groupOf(r.url) !== undefined && !/^(org|projects)$/.test(groupOf(r.url)!) && !SELF_AUTHENTICATED.test(r.url) && !CONSOLE_FILES.test(r.url));
    expect(new Set(scoped.map((r) => groupOf(r.url)))).toEqual(new Set(Object.keys(owned)));
    const leaks: string[] = [];
    const statuses = new Map<string, number>();
    for (const { method, url, schema } of scoped) {
      const real = owned[groupOf(url)!]!;
      const fake = 'z'.repeat(real.length);
      const params = (schema?.params as Schema | undefined)?.properties ?? {};
      const fill = (id: string) => (param: string) => (['id', 'id_or_name', 'run_id', 'check_id', 'suite'].includes(param) ? id : String(sample(params[param])));
      const query = new URLSearchParams(Object.entries((sample(schema?.querystring as Schema) ?? {}) as Record<string, string>)).toString();
      const json = JSON.stringify(sample(schema?.body as Schema) ?? {});
      const at = (id: string) => `${pathOf(url, fill(id))}${query ? `?${query}` : ''}`;
      // The stranger's view of a real resource must be exactly its view of one that does not exist.
      const seen = await send(method, at(real), keyB, {}, json);
      const absent = await send(method, at(fake), keyB, {}, json);
      statuses.set(`${method} ${url}`, seen.status);
      if (seen.status < 400 || seen.status !== absent.status || seen.text.replaceAll(real, fake) !== absent.text) {
        leaks.push(`${method} ${url}: ${seen.status} ${seen.text.slice(0, 160)} vs ${absent.status} ${absent.text.slice(0, 160)}`);
      }
    }
    expect(leaks).toEqual([]);
    // Every request got past validation to the scope check: a route whose inputs `sample` cannot build
    // would answer 400 here, and must be taught to it rather than silently left untested.
    expect([...statuses].filter(([, status]) => status !== 404)).toEqual([]);
    expect(statuses.size).toBeGreaterThan(50);

    // Lists, names, CDP and BiDi keep to the project as well.
    for (const list of ['/browsers?status=all', '/browser_pools', '/profiles', '/proxies', '/extensions', '/deployments', '/apps', '/invocations', '/credentials', '/auth/connections', '/site_configs', '/runs', '/monitors/checks']) {
      expect((await svc.call('GET', list, { headers: asB })).body, list).toEqual([]);
      expect((await svc.call('GET', list, { headers: asA })).body.length, list).toBeGreaterThan(0);
    }
    for (const byName of ['/browsers/owned', '/browser_pools/owned-pool', '/profiles/owned-profile', '/extensions/owned-extension/metadata', '/credentials/owned-credential', '/site_configs/owned-site.test', '/site_configs/lookup?domain=owned-site.test']) {
      expect((await svc.call('GET', byName, { headers: asB })).status, byName).toBe(404);
      expect((await svc.call('GET', byName, { headers: asA })).status, byName).toBe(200);
    }
    expect(await upgradeStatus(`/browsers/${owned.browsers}/cdp`, keyB)).toBe(401);
    expect(await upgradeStatus(`/browsers/${owned.browsers}/cdp`, keyA)).toBe(101);
    expect(await upgradeStatus(`/browsers/${owned.browsers}/bidi`, keyB)).toBe(401);
    expect(await upgradeStatus(`/browsers/${owned.browsers}/bidi`, keyA)).toBe(101);
    // The owner still has everything: the stranger's DELETEs (a run's among them) removed nothing.
    expect((await svc.call('GET', '/browser_pools/owned-pool', { headers: asA })).body.available_count).toBe(1);
    expect(statuses.get('DELETE /runs/:run_id')).toBe(404);
    expect((await svc.call('GET', `/runs/${owned.runs}`, { headers: asA })).status).toBe(200);
    expect((await svc.call('DELETE', `/runs/${owned.runs}`, { headers: asA })).status).toBe(204);
    await svc.call('DELETE', '/browser_pools/owned-pool', { headers: asA, body: { force: true } });
    await svc.call('DELETE', `/browsers/${owned.browsers}`, { headers: asA });
    // An ended browser is gone for its project's key (404), and as absent as ever for another project's (401).
    expect(await upgradeStatus(`/browsers/${owned.browsers}/cdp`, keyA)).toBe(404);
    expect(await upgradeStatus(`/browsers/${owned.browsers}/cdp`, keyB)).toBe(401);
  }, 120_000);
});

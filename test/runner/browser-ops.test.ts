// Getting the scenario's browser and giving it back are operations of the plan (`acquire_browser`,
// `release_browser`), not API calls the runner has to recognise: compiled for a new browser and for a pool
// lease, shown by `bcs plan`, read by the suite's browser preparation and pool caps, and executed against the
// real service as the very requests the hosted API sees (checked in the service's audit log by request id).
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileScenario } from '../../src/scenario/compile.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import type { Plan } from '../../src/scenario/plan.js';
import { validateScenario } from '../../src/scenario/validate.js';
import { formatPlan } from '../../runner/cli/plan-format.js';
import { browserNeed } from '../../runner/suite/browser-need.js';
import { poolOfPlan } from '../../runner/suite/workers.js';
import type { StepResult } from '../../runner/reporters/results.js';
import { ROOT, runScenarioYaml } from '../helpers/cli.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

function plan(yaml: string): Plan {
  const loaded = loadScenarioSource('scenarios/t.yaml', yaml);
  expect(validateScenario(loaded)).toEqual([]);
  return compileScenario(loaded, { env: {} });
}
const step = (p: Plan, kind: string) => p.steps.find((s) => s.kind === kind)!;
const GOTO = 'steps:\n  - goto: "data:text/html,<title>ops</title>"\n';

describe('compiled', () => {
  it('a new browser: acquire_browser with the create body, release_browser to delete it', () => {
    const p = plan(`name: t\nbrowser: { headless: true, name: mine }\n${GOTO}`);
    expect(step(p, 'browser').operations).toEqual([
      { op: 'acquire_browser', body: { headless: true, name: 'mine' }, save: 'session' },
      { op: 'connect', ws_url: '{{ session.cdp_ws_url }}' },
    ]);
    expect(step(p, 'release').operations).toEqual([{ op: 'disconnect' }, { op: 'release_browser' }]);
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    // The suite prepares from the op's body as it is.
    const create = step(p, 'browser').operations[0] as { body: unknown };
    expect(browserNeed(p)).toMatchObject({ mode: 'own', body: create.body });
    expect(browserNeed(p)!.body).toBe(create.body);
    expect(poolOfPlan(p)).toBeUndefined();
  });

  it('a pool lease: acquire_browser with the pool and the lease options, release_browser to the pool', () => {
    const p = plan(`name: t\nbrowser: { pool: "warm pool", acquire_timeout: 3s, tags: { team: qa } }\n${GOTO}`);
    expect(step(p, 'browser').operations[0]).toEqual({
      op: 'acquire_browser', pool: 'warm pool', acquire_timeout_ms: 3000, body: { acquire_timeout_seconds: 3, tags: { team: 'qa' } }, save: 'session',
    });
    expect(step(p, 'release').operations).toEqual([{ op: 'disconnect' }, { op: 'release_browser', pool: 'warm pool' }]);
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    expect(browserNeed(p)).toBeUndefined();
    expect(poolOfPlan(p)).toBe('warm pool');
  });

  it('shows as the requests they make in bcs plan', () => {
    const own = formatPlan(plan(`name: t\nbrowser: { headless: true }\n${GOTO}`));
    expect(own).toContain('create the browser: POST /browsers {"headless":true} -> {{ session }}');
    expect(own).toContain('delete the browser: DELETE /browsers/{{ session.session_id }}');
    const leased = formatPlan(plan(`name: t\nbrowser: { pool: "warm pool", acquire_timeout: 3s }\n${GOTO}`));
    expect(leased).toContain('lease a browser from pool warm pool: POST /browser_pools/warm%20pool/acquire {"acquire_timeout_seconds":3} -> {{ session }}');
    expect(leased).toContain(`no browser free (204): fail with "no browser in pool 'warm pool' became free within 3000 ms"`);
    expect(leased).toContain('release the browser to pool warm pool: POST /browser_pools/warm%20pool/release {"session_id":"{{ session.session_id }}","reuse":true}');
    expect(leased).toContain('if an earlier step failed, reuse: false');
  });
});

describe('the runner', () => {
  it('finds browser creation by the op, never by matching API paths or step names', async () => {
    const offenders: string[] = [];
    const dir = join(ROOT, 'runner');
    for (const entry of await readdir(dir, { recursive: true })) {
      if (!entry.endsWith('.ts')) continue;
      const text = await readFile(join(dir, entry), 'utf8');
      for (const [what, pattern] of [
        ['a /browsers path compared', /[!=]==\s*[`'"]\/browsers/],
        ['a /browsers path compared', /\.path\s*[!=]==/],
        ['a pool acquire path matched', /\/acquire\$?\//],
        ['a browser step told by its kind', /kind\s*[!=]==\s*'(browser|release)'/],
        ['a browser step told by its name', /[!=]==\s*'(create|delete) browser'/],
      ] as const) {
        if (pattern.test(text)) offenders.push(`runner/${entry}: ${what}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

describe('a run against the service', () => {
  let svc: TestService;
  let dir: string;
  beforeAll(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'bcs-browser-ops-'));
  });
  afterAll(async () => {
    await svc?.close();
  });
  const env = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

  async function run(name: string, yaml: string, args: string[] = []) {
    const { res, out } = await runScenarioYaml(dir, name, yaml, env(), args);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const scenario = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')).scenarios[0] as { session_id: string; steps: StepResult[] };
    const result = (kind: string) => scenario.steps.find((s) => s.kind === kind)!;
    return { scenario, browser: result('browser'), release: result('release') };
  }

  /** What the service logged for the request with that id: method, matched route and status. */
  async function logged(requestId: string): Promise<string> {
    const window = `start=${new Date(Date.now() - 3_600_000).toISOString()}&end=${new Date(Date.now() + 3_600_000).toISOString()}`;
    return eventually(async () => {
      const entries = (await svc.call('GET', `/audit-logs?${window}&limit=100`)).body as { request_id: string; method: string; path: string; status: number }[];
      const entry = entries.find((e) => e.request_id === requestId);
      return entry && `${entry.method} ${entry.path} ${entry.status}`;
    }, 30_000);
  }

  it('creates the browser with POST /browsers and deletes it with DELETE /browsers/{id}', async () => {
    // A name gives the scenario a session of its own; --isolation session keeps the suite from sharing one.
    const { scenario, browser, release } = await run('own', `name: own\nbrowser: { headless: true, name: ops-own }\n${GOTO}`, ['--isolation', 'session']);
    expect(browser.status).toBe('passed');
    expect(release.status).toBe('passed');
    expect(await logged(browser.request_ids[0]!)).toBe('POST /browsers 200');
    expect(await logged(release.request_ids[0]!)).toBe(`DELETE /browsers/${scenario.session_id} 204`);
    expect((await svc.call('GET', `/browsers/${scenario.session_id}`)).status).toBe(404);
  });

  it('leases from a pool with its acquire, and releases to it for reuse', async () => {
    expect((await svc.call('POST', '/browser_pools', { body: { name: 'ops-pool', size: 1, headless: true } })).status).toBe(200);
    await eventually(async () => ((await svc.call('GET', '/browser_pools/ops-pool')).body.available_count === 1 ? true : undefined), 60_000);
    const { scenario, browser, release } = await run('leased', `name: leased\nbrowser: { pool: ops-pool, acquire_timeout: 30s }\n${GOTO}`);
    expect(await logged(browser.request_ids[0]!)).toBe('POST /browser_pools/ops-pool/acquire 200');
    expect(await logged(release.request_ids[0]!)).toBe('POST /browser_pools/ops-pool/release 204');
    // Reused after a pass: the same browser is back in the pool, alive.
    expect((await svc.call('GET', `/browsers/${scenario.session_id}`)).status).toBe(200);
    await eventually(async () => ((await svc.call('GET', '/browser_pools/ops-pool')).body.available_count === 1 ? true : undefined), 30_000);
  });
});

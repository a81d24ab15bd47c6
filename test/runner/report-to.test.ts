// `bcs run --report-to`: a real run of a passing, a failing (with screenshots) and a flaky scenario, reported to
// a real service on SQLite and on PostgreSQL; the service then shows the run, its results, the artifacts' bytes
// as written and each scenario's history. Answers lost on the way (and a 503) are retried without anything
// kept twice; an empty shard still makes and finishes its run. A service that cannot be reached is said, and
// fails no run.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineFiles } from '../helpers/inline-files.js';
import { createDatabase, dropDatabase } from '../helpers/postgres.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { postgresServer } from '../helpers/stores.js';

const project = await inlineFiles({});
let site: Server;
let siteUrl: string;
/** Titles the site serves, per path, in turn (the last one repeats): how a scenario fails, then passes. */
const titles = new Map<string, string[]>();

beforeAll(async () => {
  site = createServer((req, res) => {
    const queue = titles.get(req.url ?? '') ?? ['none'];
    const title = queue.length > 1 ? queue.shift()! : queue[0]!;
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${title}</title><h1>${title}</h1>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  site.close();
});

/** A scenario that opens `path`, screenshots it and expects the title `ok`. */
const titleCheck = (name: string, path: string) =>
  `name: ${name}\nsteps:\n  - goto: "{{ site }}${path}"\n  - screenshot: page\n  - expect: { title: ok, timeout: 300ms }\n`;

/**
 * A proxy to `target` that loses answers: the first request of each kind (create, result, upload, finish)
 * reaches the service and is done there, but its answer never comes back (the connection is cut); the first
 * result after that is answered 503 without reaching the service. What a flaky network does to a runner.
 */
async function lossyProxy(target: string): Promise<{ url: string; lost: string[]; close(): void }> {
  const lost: string[] = [];
  const kindOf = (method: string, path: string) =>
    method !== 'POST' ? undefined : /\/artifacts\?/.test(path) ? 'upload' : /\/results$/.test(path) ? 'result' : /\/finish$/.test(path) ? 'finish' : path === '/runs' ? 'create' : undefined;
  let refused = false;
  const server = createServer((req, res) => {
    const kind = kindOf(req.method!, req.url!);
    if (kind === 'result' && lost.includes('result') && !refused) {
      refused = true;
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"code":"unavailable","message":"try again"}');
      return;
    }
    const lose = kind !== undefined && !lost.includes(kind);
    if (lose) lost.push(kind!);
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (lose) {
        // Done on the service; the runner never hears of it.
        answer.resume().on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lost, close: () => server.close() };
}

const { url: pgUrl, missing: pgMissing } = postgresServer();
const stores = [
  { store: 'SQLite', databaseUrl: async () => undefined as string | undefined, skip: undefined as string | undefined },
  { store: 'PostgreSQL', databaseUrl: async () => createDatabase(pgUrl!), skip: pgUrl ? undefined : pgMissing },
];

for (const { store, databaseUrl, skip } of stores) {
  describe.skipIf(skip !== undefined)(`bcs run --report-to, the service on ${store}${skip ? ` (skipped: ${skip})` : ''}`, { timeout: 240_000 }, () => {
    let svc: TestService;
    let database: string | undefined;
    beforeAll(async () => {
      database = await databaseUrl();
      svc = await startTestService({ ...(database ? { databaseUrl: database } : { store: 'sqlite' as const }) });
    });
    afterAll(async () => {
      await svc?.close();
      if (database) await dropDatabase(database);
    });

    it('stores the run as it goes: results, steps, screenshots and each scenario\'s pass and flaky rates', async () => {
      const tag = store.toLowerCase();
      titles.set(`/${tag}/good`, ['ok']);
      titles.set(`/${tag}/bad`, ['nope']);
      titles.set(`/${tag}/flaky`, ['nope', 'ok']);
      await project.write({
        [`${tag}/good.yaml`]: titleCheck('good page', `/${tag}/good`),
        [`${tag}/bad.yaml`]: titleCheck('bad page', `/${tag}/bad`),
        [`${tag}/flaky.yaml`]: titleCheck('flaky page', `/${tag}/flaky`),
      });
      const out = project.path(`${tag}-out`);
      const res = await project.run(
        [
          'run', `${tag}/good.yaml`, `${tag}/bad.yaml`, `${tag}/flaky.yaml`, '--retries', '1', '--var', `site=${siteUrl}`,
          '--reporter', 'json', '--output-dir', out, '--report-to', svc.baseUrl, '--suite', 'e2e',
        ],
        { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, BCS_BRANCH: 'feature-x', BCS_COMMIT: 'abc1234', CI: 'true' },
      );
      expect(res.code, res.stderr).toBe(1);
      const local = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
      const runs = await svc.call('GET', '/runs?suite=e2e');
      expect(runs.body).toHaveLength(1);
      const [run] = runs.body;
      expect(res.stderr).toContain(`--report-to: run ${run.id} stored: 3 results`);
      expect(run).toMatchObject({
        suite: 'e2e', branch: 'feature-x', commit: 'abc1234', trigger: 'ci', status: 'failed',
        summary: { total: 3, passed: 1, failed: 1, errored: 0, flaky: 1 },
      });
      expect(run.finished_at).not.toBeNull();

      const full = (await svc.call('GET', `/runs/${run.id}`)).body;
      const byName = new Map<string, any>(full.results.map((r: { name: string }) => [r.name, r]));
      expect([...byName.keys()].sort()).toEqual(['bad page', 'flaky page', 'good page']);
      expect(byName.get('flaky page')).toMatchObject({ status: 'passed', flaky: true, attempt: 2, previous_attempts: [{ status: 'failed', attempt: 1 }] });
      const bad = byName.get('bad page');
      expect(bad).toMatchObject({ status: 'failed', attempt: 2 });
      const failing = bad.steps.find((s: { status: string }) => s.status === 'failed');
      expect(failing).toMatchObject({ kind: 'expect', error: { kind: 'assertion' } });
      // Every file the local results name is there, each with the bytes written locally.
      const localBad = local.scenarios.find((s: { name: string }) => s.name === 'bad page');
      const named = [localBad, ...localBad.previous_attempts].flatMap((a: { steps: { artifacts: { path: string }[] }[] }) => a.steps.flatMap((s) => s.artifacts.map((x) => x.path)));
      expect(named.length).toBeGreaterThanOrEqual(4);
      expect(bad.artifacts.map((a: { name: string }) => a.name).sort()).toEqual([...named].sort());
      for (const artifact of bad.artifacts) {
        const got = await fetch(artifact.url, { headers: { authorization: `Bearer ${svc.apiKey}` } });
        expect(got.status).toBe(200);
        expect(Buffer.from(await got.arrayBuffer())).toEqual(await readFile(join(out, artifact.name)));
      }

      const history = async (name: string) => (await svc.call('GET', `/runs/history?suite=e2e&name=${encodeURIComponent(name)}`)).body;
      expect(await history('flaky page')).toMatchObject({ results: 1, passed: 1, flaky: 1, pass_rate: 1, flaky_rate: 1, last_failure: null });
      expect(await history('good page')).toMatchObject({ results: 1, pass_rate: 1, flaky_rate: 0 });
      const badHistory = await history('bad page');
      expect(badHistory).toMatchObject({ results: 1, failed: 1, pass_rate: 0, last_failure: { run_id: run.id, result_id: bad.id, step: { index: failing.index, kind: 'expect' }, branch: 'feature-x' } });
      expect(badHistory.last_failure.message).toContain(failing.error.message.split('\n')[0]);
      // The failure's own screenshot: the one taken at the failing step of the last attempt.
      const shot = bad.artifacts.find((a: { url: string }) => a.url === badHistory.last_failure.screenshot_url);
      expect(shot).toMatchObject({ kind: 'screenshot', step_index: failing.index, attempt: 2 });
    });

    it('keeps each result, artifact and the end once when answers are lost and requests sent again', async () => {
      const tag = `${store.toLowerCase()}-lossy`;
      titles.set(`/${tag}/good`, ['ok']);
      titles.set(`/${tag}/bad`, ['nope']);
      await project.write({ [`${tag}/good.yaml`]: titleCheck('good page', `/${tag}/good`), [`${tag}/bad.yaml`]: titleCheck('bad page', `/${tag}/bad`) });
      const proxy = await lossyProxy(svc.baseUrl);
      try {
        const out = project.path(`${tag}-out`);
        const res = await project.run(
          ['run', `${tag}/good.yaml`, `${tag}/bad.yaml`, '--var', `site=${siteUrl}`, '--reporter', 'json', '--output-dir', out, '--report-to', proxy.url, '--suite', tag],
          { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey },
        );
        expect(res.code, res.stderr).toBe(1);
        expect(proxy.lost.sort()).toEqual(['create', 'finish', 'result', 'upload']);
        const runs = (await svc.call('GET', `/runs?suite=${tag}`)).body;
        expect(runs).toHaveLength(1);
        const [run] = runs;
        expect(run).toMatchObject({ status: 'failed', summary: { total: 2, passed: 1, failed: 1 } });
        const full = (await svc.call('GET', `/runs/${run.id}`)).body;
        expect(full.results.map((r: { name: string }) => r.name).sort()).toEqual(['bad page', 'good page']);
        const local = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
        const localFiles = local.scenarios.flatMap((s: { steps: { artifacts: { path: string }[] }[] }) => s.steps.flatMap((st) => st.artifacts.map((a) => a.path)));
        const stored = full.results.flatMap((r: { artifacts: { name: string }[] }) => r.artifacts.map((a) => a.name));
        expect(stored.sort()).toEqual([...localFiles].sort());
        expect(res.stderr).toContain(`--report-to: run ${run.id} stored: 2 results, ${localFiles.length} artifacts`);
        expect(res.stderr).not.toContain('did not get all of the run');
      } finally {
        proxy.close();
      }
    });

    it('makes and finishes the run of a shard with nothing to run', async () => {
      const tag = `${store.toLowerCase()}-shards`;
      await project.write({ [`${tag}/one.yaml`]: titleCheck('one', '/one'), [`${tag}/two.yaml`]: titleCheck('two', '/two') });
      // Two files in three shards: the third has none.
      const res = await project.run(['run', tag, '--shard', '3/3', '--var', `site=${siteUrl}`, '--report-to', svc.baseUrl, '--suite', tag], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, CI: '1' });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain('shard 3/3 has no scenarios');
      const runs = (await svc.call('GET', `/runs?suite=${tag}`)).body;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ shard: { index: 3, total: 3 }, trigger: 'ci', status: 'passed', summary: { total: 0, passed: 0, failed: 0, errored: 0, flaky: 0 } });
      expect(runs[0].finished_at).not.toBeNull();
      expect(res.stderr).toContain(`--report-to: run ${runs[0].id} stored: 0 results, 0 artifacts`);
      expect((await svc.call('GET', `/runs/${runs[0].id}`)).body.results).toEqual([]);
    });

    it.skipIf(store !== 'SQLite')('keeps scheduled runs the same way, as `schedule` runs of the suite', async () => {
      titles.set('/scheduled', ['ok']);
      await project.write({ 'scheduled.yaml': titleCheck('scheduled page', '/scheduled') });
      const res = await project.run(
        ['schedule', 'scheduled.yaml', '--cron', '* * * * * *', '--max-runs', '1', '--history', project.path('history'), '--var', `site=${siteUrl}`, '--report-to', svc.baseUrl, '--suite', 'monitor'],
        { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey },
      );
      expect(res.code, res.stderr).toBe(0);
      const runs = (await svc.call('GET', '/runs?suite=monitor&trigger=schedule')).body;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'passed', summary: { total: 1, passed: 1 } });
      const history = (await svc.call('GET', '/runs/history?suite=monitor&name=scheduled%20page')).body;
      expect(history).toMatchObject({ results: 1, pass_rate: 1 });
    });
  });
}

describe('bcs run --report-to a service that does not answer', { timeout: 120_000 }, () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('says so and keeps the outcome of the scenarios', async () => {
    titles.set('/unreachable', ['ok']);
    await project.write({ 'unreachable.yaml': titleCheck('unreachable', '/unreachable') });
    // Port 9 (discard) has no listener here: the connection is refused at once.
    const res = await project.run(['run', 'unreachable.yaml', '--var', `site=${siteUrl}`, '--report-to', 'http://127.0.0.1:9'], {
      BCS_BASE_URL: svc.baseUrl,
      BCS_API_KEY: svc.apiKey,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('--report-to: creating the run failed');
    expect(res.stderr).toContain('--report-to: the service did not get all of the run: creating the run failed');
  });

  it('refuses a report URL that is not one, before anything runs', async () => {
    const res = await project.run(['run', 'unreachable.yaml', '--report-to', 'runs.example.com'], { BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("--report-to must be an http:// or https:// URL, got 'runs.example.com'");
  });
});

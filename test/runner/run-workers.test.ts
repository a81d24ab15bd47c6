// `--workers N`: scenarios run at once on one target, and those leasing from a pool queue for its browsers;
// `--shard i/n` runs its part of the selection and says which in the results.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

interface Result {
  name: string;
  status: string;
  started_at: string;
  duration_ms: number;
  session_id: string;
  steps: { kind: string; status: string; error?: { message: string } }[];
}

async function write(name: string, yaml: string): Promise<string> {
  await project.write({ [name]: yaml });
  return project.path(name);
}

const span = (r: Result) => ({ start: Date.parse(r.started_at), end: Date.parse(r.started_at) + r.duration_ms });

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs run --workers', { timeout: 180_000 }, () => {
  it('runs scenarios at once on the embedded service, which never refuses the parallel creates', async () => {
    const files = await Promise.all(
      [1, 2, 3].map((i) => write(`parallel-${i}.yaml`, `name: parallel ${i}\nsteps:\n  - goto: "data:text/html,<title>p${i}</title>"\n  - sleep: 2s\n`)),
    );
    const out = project.path('parallel-out');
    // A session per scenario (page-only scenarios would share one otherwise), so three creates at once.
    const res = await runCli(['run', ...files, '--workers', '3', '--isolation', 'session', '--reporter', 'list,json', '--output-dir', out]);
    expect(res.code, res.stderr).toBe(0);
    // One header, in one wording.
    expect(res.stdout.match(/running 3 scenarios on /g)).toHaveLength(1);
    expect(res.stdout).toContain(', 3 at a time');
    expect(res.stderr).not.toContain('workers');
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const scenarios: Result[] = results.scenarios;
    // Reported in the order given, whatever order they finished in.
    expect(scenarios.map((s) => s.name)).toEqual(['parallel 1', 'parallel 2', 'parallel 3']);
    expect(scenarios.every((s) => s.status === 'passed')).toBe(true);
    expect(new Set(scenarios.map((s) => s.session_id)).size).toBe(3);
    // All three were under way together: each started before any of them ended.
    const spans = scenarios.map(span);
    expect(Math.max(...spans.map((s) => s.start))).toBeLessThan(Math.min(...spans.map((s) => s.end)));
  });

  it('caps scenarios leasing from a pool at its size, so the others queue instead of timing out on acquire', async () => {
    const pool = await svc.call('POST', '/browser_pools', { body: { name: 'two-seats', size: 2, headless: true } });
    expect(pool.status, JSON.stringify(pool.body)).toBe(200);
    await expect.poll(async () => (await svc.call('GET', '/browser_pools/two-seats')).body.available_count, { timeout: 30_000 }).toBe(2);
    const pooled = await Promise.all(
      [1, 2, 3, 4].map((i) => write(`pooled-${i}.yaml`, `name: pooled ${i}\nbrowser: { pool: two-seats }\nsteps:\n  - goto: "data:text/html,x"\n  - sleep: 1s\n`)),
    );
    const free = await write('unpooled.yaml', 'name: unpooled\nsteps:\n  - goto: "data:text/html,x"\n');
    const out = project.path('pooled-out');
    const res = await runCli(['run', ...pooled, free, '--workers', '4', '--reporter', 'json', '--output-dir', out], {
      BCS_BASE_URL: svc.baseUrl,
      BCS_API_KEY: svc.apiKey,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain("pool 'two-seats' has 2 browsers: at most 2 of its 4 scenarios run at once");
    const scenarios: Result[] = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')).scenarios;
    expect(scenarios.map((s) => s.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    // At no moment were more than two pooled scenarios running: each start is after the start of at most
    // one other pooled scenario that had not ended yet.
    const spans = scenarios.filter((s) => s.name.startsWith('pooled')).map(span);
    for (const s of spans) {
      const running = spans.filter((o) => o !== s && o.start <= s.start && o.end > s.start);
      expect(running.length).toBeLessThanOrEqual(1);
    }
  });

  it('runs only its shard, records it in results that match the results schema', async () => {
    const files = await Promise.all(['x', 'y', 'z'].map((n) => write(`shard-${n}.yaml`, `name: shard ${n}\nsteps:\n  - goto: "data:text/html,${n}"\n`)));
    const out = project.path('shard-out');
    const res = await runCli(['run', ...files, '--shard', '1/2', '--workers', '2', '--reporter', 'json', '--output-dir', out], {
      BCS_BASE_URL: svc.baseUrl,
      BCS_API_KEY: svc.apiKey,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('shard 1/2: 2 of 3 scenarios');
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.shard).toEqual({ index: 1, total: 2 });
    expect(results.scenarios.map((s: Result) => s.name)).toEqual(['shard x', 'shard y']);
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    // ajv-formats is CommonJS: its default export arrives as the module object or the function itself.
    (((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(join(ROOT, 'runner/results.schema.json'), 'utf8')));
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
  });
});

// The suite config (`bcs.config.yaml` / --config): defaults for the flags, `before`/`after` hooks, and
// clear errors for a config that does not validate.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({
  'suite/a.yaml': 'name: a\ntags: [smoke]\nsteps:\n  - goto: "data:text/html,a"\n',
  'suite/b.yaml': 'name: b\ntags: [slow]\nsteps:\n  - goto: "data:text/html,b"\n',
  'hooks/seed.yaml': 'name: seed data\nsteps:\n  - goto: "data:text/html,seed"\n',
  'hooks/broken-seed.yaml': 'name: broken seed\nsteps:\n  - expect: { title: never, timeout: 200ms }\n',
  'hooks/cleanup.yaml': 'name: cleanup\nsteps:\n  - goto: "data:text/html,{{ who }}"\n',
});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function config(name: string, yaml: string): Promise<string> {
  await project.write({ [name]: yaml });
  return project.path(name);
}

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs.config.yaml', { timeout: 180_000 }, () => {
  it('supplies paths, tags, reporters, output dir and vars (relative to the config file), and runs the hooks around the suite', async () => {
    const file = await config(
      'suite.config.yaml',
      `paths: [suite]\ntags: [smoke]\nreporter: json\noutput_dir: config-out\nretries: 1\nvars: { who: config }\nbefore: hooks/seed.yaml\nafter: [hooks/cleanup.yaml]\n`,
    );
    const res = await runCli(['run', '--config', file], remote());
    expect(res.code, res.stderr).toBe(0);
    // reporter json only: no step list on stdout.
    expect(res.stdout).toBe('');
    const results = JSON.parse(await readFile(join(project.path('config-out'), 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string; hook?: string }) => [s.name, s.hook ?? null])).toEqual([
      ['seed data', 'before'],
      ['a', null],
      ['cleanup', 'after'],
    ]);
    expect(results.scenarios[1].attempt).toBe(1);
    // The hook marks are part of the results schema.
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    // ajv-formats is CommonJS: its default export arrives as the module object or the function itself.
    (((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(join(ROOT, 'runner/results.schema.json'), 'utf8')));
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
    const cleanupGoto = results.scenarios[2].steps.find((s: { kind: string }) => s.kind === 'goto');
    expect(cleanupGoto.name).toContain('data:text/html,config');
  });

  it('lets flags win over the config', async () => {
    const file = await config('flags.config.yaml', 'paths: [suite]\ntags: [smoke]\nreporter: json\noutput_dir: ignored-out\n');
    const out = project.path('flag-out');
    const res = await runCli(['run', '--config', file, '--tag', 'slow', '--output-dir', out], remote());
    expect(res.code, res.stderr).toBe(0);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string }) => s.name)).toEqual(['b']);
  });

  it('skips the suite when a before hook fails, and still runs the after hooks', async () => {
    const file = await config('failing-hook.config.yaml', 'paths: [suite]\nreporter: json\noutput_dir: hook-out\nbefore: [hooks/broken-seed.yaml]\nafter: [hooks/cleanup.yaml]\n');
    const res = await runCli(['run', '--config', file, '--var', 'who=cli'], remote());
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('a before hook failed');
    const results = JSON.parse(await readFile(join(project.path('hook-out'), 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual([
      ['broken seed', 'failed'],
      ['cleanup', 'passed'],
    ]);
    expect(results.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason])).toEqual([
      ['a', 'before hook failed'],
      ['b', 'before hook failed'],
    ]);
  });

  it('starts the suite web server before everything, exposes its URL, and stops it after', async () => {
    const port = await freePort();
    await project.write({
      'app.cjs': "require('node:http').createServer((q, r) => r.end('<title>suite app</title>')).listen(Number(process.env.PORT), '127.0.0.1');\n",
      'uses-app.yaml': 'name: uses app\nsteps:\n  - goto: "{{ env.BCS_WEB_SERVER_URL }}/"\n  - expect: { title: suite app }\n',
    });
    const file = await config(
      'web.config.yaml',
      `paths: [uses-app.yaml]\nreporter: json\noutput_dir: web-out\nweb_server:\n  command: node app.cjs\n  url: http://127.0.0.1:${port}/\n  timeout: 30s\n  env: { PORT: "${port}" }\n`,
    );
    const res = await runCli(['run', '--config', file], remote());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`web server answering at http://127.0.0.1:${port}/`);
    const results = JSON.parse(await readFile(join(project.path('web-out'), 'results.json'), 'utf8'));
    expect(results.scenarios[0].status).toBe('passed');
    // Stopped with the run: nothing answers there any more.
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });

  it('reports every problem in an invalid config at its line and column, and exits 2', async () => {
    const file = await config('bad.config.yaml', 'paths: [suite]\nworkers: two\nretires: 2\ntimeout: soon\nweb_server: { url: "ftp://x" }\n');
    const res = await runCli(['run', '--config', file], remote());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:2:10 workers must be integer`);
    expect(res.stderr).toContain(`${file}:3:1 unknown field 'retires' in the config; expected one of paths, workers, retries`);
    expect(res.stderr).toContain(`${file}:4:10 timeout must be a duration`);
    expect(res.stderr).toContain(`${file}:5:13 web_server needs 'command'`);
    expect(res.stderr).toContain(`${file}:5:20 web_server.url must be an http:// or https:// URL`);
    const missing = await runCli(['run', '--config', project.path('nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('config file not found');
  });

  it('gives the embedded service the pools it declares, so pool scenarios run with a plain bcs run', async () => {
    await project.write({ 'pooled/lease.yaml': 'name: lease\nbrowser: { pool: warm }\nsteps:\n  - goto: "data:text/html,<title>leased</title>"\n  - expect: { title: leased }\n' });
    const file = await config('pools.config.yaml', 'paths: [pooled]\noutput_dir: pooled-out\npools:\n  warm:\n    size: 1\n    viewport: { width: 800, height: 600 }\n');
    // No --base-url: the embedded service, which has no pools of its own.
    const res = await runCli(['run', '--config', file]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('lease a browser from pool warm');

    const bad = await config('bad-pools.config.yaml', 'paths: [pooled]\npools:\n  warm: { sizes: 1 }\n');
    const refused = await runCli(['run', '--config', bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}:3:9 pools.warm needs 'size'`);
    expect(refused.stderr).toContain(`${bad}:3:11 unknown field 'sizes' in pools.warm; expected one of size, headless`);
  });

  it('bcs pools creates, lists, shows, flushes and deletes pools on a running service', async () => {
    const created = await runCli(['pools', 'create', '--name', 'ci-pool', '--size', '1', '--viewport', '1024x768', '--timeout', '120'], remote());
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created pool ci-pool \(id \S+, 1 browsers\)/);
    const listed = await runCli(['pools', 'list', '--json'], remote());
    const pool = (JSON.parse(listed.stdout) as { name: string; browser_pool_config: { viewport: unknown; timeout_seconds: number } }[]).find((p) => p.name === 'ci-pool');
    expect(pool?.browser_pool_config).toMatchObject({ viewport: { width: 1024, height: 768 }, timeout_seconds: 120 });
    expect((await runCli(['pools', 'get', 'ci-pool'], remote())).stdout).toMatch(/ci-pool\s+1\s+/);
    expect((await runCli(['pools', 'flush', 'ci-pool'], remote())).stdout).toBe('flushed pool ci-pool\n');
    expect((await runCli(['pools', 'delete', 'ci-pool', '--force'], remote())).code).toBe(0);
    const gone = await runCli(['pools', 'get', 'ci-pool'], remote());
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('not_found');
    const usage = await runCli(['pools', 'create', '--size', 'lots'], remote());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--size must be a whole number from 1 to 1000, got 'lots'");
  });
});

// `bcs schedule`: a real cron firing every second, runs recorded in a history folder with an index,
// failing runs shouted on stderr and posted to a webhook, no overlapping runs, graceful stop.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
let receiver: Server;
let receiverUrl: string;
const posts: { headers: Record<string, unknown>; body: any }[] = [];

beforeAll(async () => {
  svc = await startTestService();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      posts.push({ headers: req.headers, body: JSON.parse(body) });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/bcs?token=s3cret`;
});
afterAll(async () => {
  receiver.close();
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
const EVERY_SECOND = '* * * * * *';

async function write(name: string, yaml: string): Promise<string> {
  await project.write({ [name]: yaml });
  return project.path(name);
}

async function runDirs(history: string): Promise<string[]> {
  return (await readdir(history, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('bcs schedule', { timeout: 180_000 }, () => {
  it('runs on the cron, keeps each run in its own history folder and indexes the trend', async () => {
    const file = await write('ok.yaml', 'name: stays green\nsteps:\n  - goto: "data:text/html,<title>ok</title>"\n');
    const history = project.path('green-history');
    const res = await runCli(['schedule', file, '--cron', EVERY_SECOND, '--history', history, '--max-runs', '2', '--reporter', 'list'], remote());
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/bcs schedule: schedule '\* \* \* \* \* \*': first run at /);
    expect(res.stdout.match(/bcs schedule: run \S+ passed: 1\/1 scenarios/g)).toHaveLength(2);
    const dirs = await runDirs(history);
    expect(dirs).toHaveLength(2);
    const index = JSON.parse(await readFile(join(history, 'index.json'), 'utf8'));
    expect(index.runs.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual(dirs.map((d) => [d, 'passed']));
    for (const d of dirs) {
      // json is always written into a run's folder, whatever --reporter says.
      const results = JSON.parse(await readFile(join(history, d, 'results.json'), 'utf8'));
      expect(results.scenarios[0]).toMatchObject({ name: 'stays green', status: 'passed' });
    }
    const html = await readFile(join(history, 'index.html'), 'utf8');
    expect(html).toContain('2 runs; 2 of the last 2 passed (100%)');
    expect(html.match(/class="cell"/g)).toHaveLength(2);
    expect(html).toContain(`href="${dirs[0]}/results.json"`);
  });

  it('logs a failing run loudly and posts it to the webhook without secrets', async () => {
    const file = await write('red.yaml', 'name: goes red\nsteps:\n  - goto: "data:text/html,<title>a</title>"\n  - expect: { title: b, timeout: 200ms }\n');
    const history = project.path('red-history');
    posts.length = 0;
    const res = await runCli(['schedule', file, '--cron', EVERY_SECOND, '--history', history, '--max-runs', '1', '--webhook', receiverUrl], remote());
    // With --max-runs the exit code is the last run's.
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('RUN FAILED');
    expect(res.stderr).toMatch(/✗ goes red: expected title .*"b".*  at .*red.yaml:4:5/);
    expect(res.stdout).toContain("posted 'run_failed'");
    expect(res.stdout + res.stderr).not.toContain('s3cret');
    expect(posts).toHaveLength(1);
    const [post] = posts;
    expect(post!.headers['content-type']).toBe('application/json');
    expect(post!.body).toMatchObject({ event: 'run_failed', run: { status: 'failed', exit_code: 1, summary: { total: 1, failed: 1 } } });
    expect(post!.body.failures[0]).toMatchObject({ scenario: 'goes red', kind: 'assertion', location: `${file}:4:5` });
    expect(post!.body.text).toContain('goes red');
    expect(JSON.stringify(post!.body)).not.toContain(svc.apiKey);
    expect(JSON.stringify(post!.body)).not.toContain(svc.baseUrl);
    const index = JSON.parse(await readFile(join(history, 'index.json'), 'utf8'));
    expect(index.runs[0].status).toBe('failed');
  });

  it('never overlaps runs: ticks during a run are skipped; a stop interrupts the run and keeps its partial report', async () => {
    const file = await write('long.yaml', 'name: takes long\nsteps:\n  - goto: "data:text/html,x"\n  - sleep: 60s\n');
    const history = project.path('long-history');
    const { child, done } = startCli(['schedule', file, '--cron', EVERY_SECOND, '--history', history], remote());
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    await eventually(() => (stdout.includes('skipped: the previous run is still going') ? true : undefined), 45_000);
    await eventually(async () => ((await svc.call('GET', '/browsers')).body.length === 1 ? true : undefined), 30_000);
    child.kill('SIGTERM');
    const res = await done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.match(/run \S+ started/g)).toHaveLength(1);
    const index = JSON.parse(await readFile(join(history, 'index.json'), 'utf8'));
    expect(index.runs.map((r: { status: string }) => r.status)).toEqual(['interrupted']);
    const results = JSON.parse(await readFile(join(history, index.runs[0].id, 'results.json'), 'utf8'));
    expect(results.scenarios[0]).toMatchObject({ name: 'takes long', interrupted: true });
    expect((await svc.call('GET', '/browsers')).body).toEqual([]);
  });

  it('refuses a missing or invalid cron expression', async () => {
    const file = await write('any.yaml', 'name: any\nsteps:\n  - goto: "data:text/html,x"\n');
    const missing = await runCli(['schedule', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--cron is required');
    const invalid = await runCli(['schedule', file, '--cron', 'every tuesday']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("--cron 'every tuesday'");
  });
});

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function scenario(name: string, yaml: string): Promise<string> {
  await project.write({ [name]: yaml });
  return project.path(name);
}

async function deletedSessions(): Promise<{ session_id: string; end_reason: string }[]> {
  return (await svc.call('GET', '/browsers?status=deleted&limit=100')).body;
}

describe('bcs run', () => {
  it('runs the quickstart on the embedded service, writing results JSON and the screenshot', async () => {
    const out = project.path('quickstart-out');
    const res = await runCli(['run', 'scenarios/quickstart.yaml', '--reporter', 'list,json', '--output-dir', out]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('running 1 scenario on embedded service');
    expect(res.stdout).toMatch(/✓ expect text "Hello, Ada!"/);
    expect(res.stdout).toMatch(/1 passed, 0 failed/);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.summary).toMatchObject({ total: 1, passed: 1, failed: 0, errored: 0, flaky: 0, skipped: 0 });
    const [run] = results.scenarios;
    expect(run.steps.map((s: { status: string }) => s.status).every((s: string) => s === 'passed')).toBe(true);
    expect(run.steps.find((s: { kind: string }) => s.kind === 'browser').request_ids[0]).toMatch(/^req_/);
    const shot = run.steps.find((s: { kind: string }) => s.kind === 'screenshot').artifacts[0].path;
    const png = await readFile(join(out, shot));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The quickstart records a replay: a marker per main step, its own marker among them, in order.
    const main = run.steps.filter((s: { phase: string }) => s.phase === 'main');
    expect(run.replay.markers.map((m: { name: string }) => m.name)).toEqual(main.map((s: { kind: string; name: string }) => (s.kind === 'marker' ? 'greeted by the form' : s.name)));
    const offsets = run.replay.markers.map((m: { offset_ms: number }) => m.offset_ms);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    const mp4 = await readFile(join(out, run.replay.video));
    expect(mp4.subarray(4, 8).toString()).toBe('ftyp');
    expect(await readFile(join(out, run.replay.vtt), 'utf8')).toContain('greeted by the form');
  });

  it('exits 1 on a failing expect, names the step and its line, and still deletes the session', async () => {
    const file = await scenario(
      'failing.yaml',
      `name: failing expect
steps:
  - goto: "data:text/html,<h1>Hello</h1>"
  - name: look for a word that is not there
    expect: { text: Goodbye, timeout: 500ms }
  - goto: "data:text/html,never"
`,
    );
    const before = (await deletedSessions()).length;
    const res = await runCli(['run', file, '--json'], remote());
    expect(res.code).toBe(1);
    const result = JSON.parse(res.stdout);
    const [run] = result.scenarios;
    expect(run.status).toBe('failed');
    const failed = run.steps.find((s: { status: string }) => s.status === 'failed');
    expect(failed.name).toBe('look for a word that is not there');
    expect(failed.error).toMatchObject({ kind: 'assertion', location: `${file}:4:5` });
    expect(failed.error.message).toContain('expected text "Goodbye" to be visible');
    // The whole list, so a failure shows every step's status.
    expect(run.steps.map((s: { phase: string; kind: string; status: string }) => `${s.phase} ${s.kind} ${s.status}`)).toEqual([
      'setup browser passed', 'main goto passed', 'main expect failed', 'main goto skipped', 'teardown release passed',
    ]);
    const deleted = await deletedSessions();
    expect(deleted.length).toBe(before + 1);
    expect(deleted.find((s) => s.session_id === run.session_id)?.end_reason).toBe('deleted');
  });

  it('prints the failure with file:line:col in the step list', async () => {
    const file = await scenario('failing-list.yaml', `name: list failure\nsteps:\n  - goto: "data:text/html,x"\n  - expect: { title: Nope, timeout: 300ms }\n`);
    const res = await runCli(['run', file], remote());
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('✗ expect title "Nope"');
    expect(res.stdout).toContain(`at ${file}:4:5`);
    expect(res.stdout).toMatch(/0 passed, 1 failed/);
  });

  it('exits 2 for an invalid scenario without starting a browser', async () => {
    const file = await scenario('invalid.yaml', `name: invalid\nsteps:\n  - goto: "data:text/html,x"\n  - gto: nowhere\n`);
    const sessionsBefore = svc.sessions.size;
    const res = await runCli(['run', file], remote());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:4:5 unknown step kind 'gto'`);
    expect(res.stdout).not.toContain('running');
    expect(svc.sessions.size).toBe(sessionsBefore);
  });

  it('exits 2 for usage errors', async () => {
    expect((await runCli(['run'])).code).toBe(2);
    expect((await runCli(['run', 'scenarios/quickstart.yaml', '--reporter', 'fancy'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
  });

  it('exits 3 when the service is unreachable', async () => {
    const file = await scenario('unreachable.yaml', `name: unreachable\nsteps:\n  - goto: "data:text/html,x"\n`);
    const res = await runCli(['run', file], { BCS_BASE_URL: 'http://127.0.0.1:9', BCS_API_KEY: 'bcs_whatever' });
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('error (infrastructure)');
    expect(res.stdout).not.toContain('bcs_whatever');
  });

  it('releases the browser and exits 130 on Ctrl-C', async () => {
    // The page the scenario opens says when its steps have begun: the browser may be created ahead, before
    // the scenario starts, so its appearing in the service says nothing about where the run is.
    let visited!: () => void;
    const begun = new Promise<void>((r) => (visited = r));
    const page = createServer((_req, res) => (visited(), res.end('<title>x</title>')));
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    const file = await scenario('long.yaml', `name: long\nsteps:\n  - goto: "${url}"\n  - sleep: 60s\n`);
    const { child, done } = startCli(['run', file, '--json'], remote());
    await begun;
    const session = await eventually(async () => (await svc.call('GET', '/browsers')).body[0]);
    // The run is in its goto or its long sleep: the step running is cut short, nothing after it runs, and
    // the browser is released.
    child.kill('SIGINT');
    const res = await done;
    expect(res.code).toBe(130);
    const [run] = JSON.parse(res.stdout).scenarios;
    expect(run.interrupted).toBe(true);
    const main = run.steps.filter((s: { phase: string }) => s.phase === 'main');
    expect(main.at(-1).status).not.toBe('passed');
    const stopped = main.findIndex((s: { status: string }) => s.status !== 'passed');
    expect(main.slice(stopped + 1).every((s: { status: string }) => s.status === 'skipped')).toBe(true);
    expect(main[stopped].error?.kind ?? main[stopped].note).toMatch(/interrupted/);
    expect(run.steps.find((s: { kind: string }) => s.kind === 'release').status).toBe('passed');
    expect((await deletedSessions()).find((s) => s.session_id === session.session_id)?.end_reason).toBe('deleted');
    page.close();
  });
});

describe('bcs plan and validate', () => {
  it('prints the quickstart plan readably and as JSON', async () => {
    const text = await runCli(['plan', 'scenarios/quickstart.yaml']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('create the browser: POST /browsers {"headless":true,"viewport":{"width":1280,"height":800}} -> {{ session }}');
    expect(text.stdout).toContain('delete the browser: DELETE /browsers/{{ session.session_id }}');
    expect(text.stdout).toContain('teardown (always runs)');
    const json = await runCli(['plan', 'scenarios/quickstart.yaml', '--json', '--var', 'visitor=Linus']);
    const plan = JSON.parse(json.stdout);
    expect(plan.version).toBe(1);
    expect(JSON.stringify(plan)).toContain('Hello, Linus!');
    const ops = plan.steps.flatMap((s: { operations: { op: string }[] }) => s.operations);
    expect(ops).toContainEqual({ op: 'acquire_browser', body: { headless: true, viewport: { width: 1280, height: 800 } }, save: 'session' });
    expect(ops).toContainEqual({ op: 'release_browser' });
  });

  it('validates files and folders, and reports errors with positions', async () => {
    // The folder's count grows with the examples (YAML and *.scenario.ts); two named files are exactly two.
    const folder = await runCli(['validate', 'scenarios']);
    expect(folder.code, folder.stderr).toBe(0);
    expect(folder.stdout).toMatch(/^\d+ scenario files and \d+ parts? valid$/m);
    expect((await runCli(['validate', 'scenarios/quickstart.yaml', 'scenarios/host-apis.yaml'])).stdout).toMatch(/^2 scenario files valid$/m);
    const bad = await scenario('bad-validate.yaml', `name: 3\nsteps: []\n`);
    const res = await runCli(['validate', bad]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${bad}:1:7`);
  });
});

// Ctrl-C during a parallel run: every running scenario's browser is released, scenarios not yet started
// are reported as skipped, the partial report is written, and the exit code is 130.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const long = (i: number) => `name: long ${i}\nsteps:\n  - goto: "data:text/html,x"\n  - sleep: 60s\n`;
const project = await inlineFiles({ 'long-1.yaml': long(1), 'long-2.yaml': long(2), 'long-3.yaml': long(3) });
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

// Each test starts `bcs` (and browsers) several times: seconds apiece on a busy two-core machine.
describe('Ctrl-C during bcs run --workers', { timeout: 180_000 }, () => {
  it('releases every acquired browser, writes the partial report and exits 130', async () => {
    const files = [1, 2, 3].map((i) => project.path(`long-${i}.yaml`));
    const out = project.path('out');
    // A session per scenario (these only drive pages, so they would share one otherwise).
    const { child, done } = startCli(['run', ...files, '--workers', '2', '--isolation', 'session', '--reporter', 'json', '--output-dir', out], {
      BCS_BASE_URL: svc.baseUrl,
      BCS_API_KEY: svc.apiKey,
    });
    // Both workers hold a browser: interrupt now. A session that merely exists may be a create whose answer
    // the run has not read yet, or one the run prepares ahead for the third scenario; one its scenario has
    // connected to is held.
    const running = await eventually(async () => {
      const live = (await svc.call('GET', '/browsers')).body as { session_id: string }[];
      const held = live.filter((s) => (svc.sessions.get(s.session_id)?.connections.size ?? 0) > 0);
      return held.length === 2 ? held : undefined;
    }, 45_000);
    child.kill('SIGINT');
    const res = await done;
    expect(res.code, res.stderr).toBe(130);
    expect(res.stderr).toContain('interrupted; releasing browsers');

    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expect(results.scenarios.map((s: { name: string }) => s.name)).toEqual(['long 1', 'long 2']);
    for (const s of results.scenarios) {
      expect(s.interrupted).toBe(true);
      expect(s.steps.find((st: { kind: string }) => st.kind === 'release').status).toBe('passed');
    }
    expect(results.skipped).toEqual([{ name: 'long 3', file: files[2], reason: 'interrupted' }]);
    expect(results.summary.skipped).toBe(1);

    expect((await svc.call('GET', '/browsers')).body).toEqual([]);
    const deleted = (await svc.call('GET', '/browsers?status=deleted&limit=100')).body as { session_id: string; end_reason: string }[];
    for (const { session_id } of running) expect(deleted.find((d) => d.session_id === session_id)?.end_reason).toBe('deleted');
    // An interrupted scenario counts as failed for the next --last-failed.
    const last = JSON.parse(await readFile(join(out, '.last-run.json'), 'utf8'));
    expect(last.failed.map((f: { name: string }) => f.name)).toEqual(['long 1', 'long 2']);
  });

  it('deletes the sessions the run shared and prepared', async () => {
    const out = project.path('shared-out');
    const files = [project.path('long-1.yaml'), project.path('long-2.yaml'), project.path('long-3.yaml')];
    const { child, done } = startCli(['run', ...files, '--workers', '2', '--reporter', 'json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    // Both running scenarios are in their step of 60 s, in contexts of the shared session.
    await eventually(async () => {
      const text = await readFile(join(out, 'results.json'), 'utf8').catch(() => '');
      const live = (await svc.call('GET', '/browsers')).body as unknown[];
      return live.length > 0 && text === '' ? live : undefined;
    }, 45_000);
    await new Promise((r) => setTimeout(r, 3000));
    child.kill('SIGINT');
    const res = await done;
    expect(res.code, res.stderr).toBe(130);
    expect((await svc.call('GET', '/browsers')).body).toEqual([]);
  });
});

// `bcs run --watch` as a user runs it: the first run, then only the scenarios a change touches (a served
// file, a scenario file), nothing for a file no scenario uses, and Ctrl-C ends it with the last run's code.
import { appendFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({
  'suite/site/index.html': '<h1>Hello</h1>',
  'suite/notes.txt': 'nothing to do with it',
  'suite/served.yaml': 'name: served\nserve: site\nsteps:\n  - goto: /index.html\n  - expect: { text: Hello, timeout: 1s }\n',
  'suite/other.yaml': 'name: other\nsteps:\n  - goto: "data:text/html,<p>other</p>"\n',
});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

describe('bcs run --watch', { timeout: 180_000 }, () => {
  it('runs again what a change touches, and stops on Ctrl-C', async () => {
    const { child, done } = startCli(['run', project.path('suite'), '--watch', '--output-dir', project.path('out')], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const seen = (text: string | RegExp, times = 1) =>
      expect.poll(() => (typeof text === 'string' ? out.split(text).length - 1 : (out.match(new RegExp(text, 'g')) ?? []).length), { timeout: 60_000 }).toBeGreaterThanOrEqual(times);
    try {
      await seen('for changes; Ctrl-C to stop');
      expect(out).toContain('2 passed, 0 failed');

      await project.write({ 'suite/site/index.html': '<h1>Goodbye</h1>' });
      await seen(/running .*served\.yaml\n/);
      await seen('0 passed, 1 failed');
      expect(out).toContain('running 1 scenario');
      await seen('for changes; Ctrl-C to stop', 2);

      await project.write({ 'suite/notes.txt': 'still nothing' });
      await seen('notes.txt; no scenario depends on it');

      await appendFile(project.path('suite/other.yaml'), '  - expect: { text: other }\n');
      await seen(/running .*other\.yaml\n/);
      await seen('1 passed, 0 failed');
      await seen('for changes; Ctrl-C to stop', 3);
    } finally {
      child.kill('SIGINT');
    }
    const res = await done;
    // The last run passed.
    expect(res.code, out).toBe(0);
  });
});

// Folder defaults from the CLI with real Chromium: hooks run as the scenario's steps (after_each also when
// a step failed), reported with their own file and line; tags from defaults select scenarios.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

interface StepResult { name: string; status: string; phase: string; source: { file: string; line: number } }

describe('folder defaults', { timeout: 180_000 }, () => {
  it('serves, tags and opens the page once for a folder; after_each runs when a step failed', async () => {
    const project = await inlineFiles({
      'package.json': '{}',
      'suite/site/index.html': '<title>Home</title><p>Hello</p>',
      'suite/bcs.defaults.yaml': 'tags: [home]\nserve: site\nbefore_each:\n  - goto: /\nafter_each:\n  - screenshot: last page\n',
      'suite/passes.yaml': 'name: passes\nsteps:\n  - expect: { text: Hello }\n',
      'suite/fails.yaml': 'name: fails\nsteps:\n  - expect: { text: Goodbye, timeout: 200ms }\n',
      'suite/other.yaml': 'name: other\ntags: [other]\nserve: site\nsteps:\n  - goto: /\n',
    });
    const out = project.path('out');
    const res = await runCli(['run', project.path('suite'), '--tag', 'home', '--reporter', 'list,json', '--output-dir', out], remote());
    expect(res.code, res.stdout + res.stderr).toBe(1);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const byName = Object.fromEntries(results.scenarios.map((s: { name: string; status: string; steps: StepResult[] }) => [s.name, s]));
    // `other` sets its own tags too, but gets the folder's: the union selects it.
    expect(Object.keys(byName).sort()).toEqual(['fails', 'other', 'passes']);
    expect(byName.passes.status).toBe('passed');
    const main = (name: string) => (byName[name].steps as StepResult[]).filter((s) => s.phase === 'main').map((s) => `${s.name} ${s.status} ${s.source.file.split('/').pop()}:${s.source.line}`);
    expect(main('passes')).toEqual(['goto / passed bcs.defaults.yaml:4', 'expect text "Hello" passed passes.yaml:3', 'screenshot last page passed bcs.defaults.yaml:6']);
    expect(byName.fails.status).toBe('failed');
    expect(main('fails')).toEqual(['goto / passed bcs.defaults.yaml:4', 'expect text "Goodbye" failed fails.yaml:3', 'screenshot last page passed bcs.defaults.yaml:6']);
    expect(main('other')).toEqual(['goto / passed bcs.defaults.yaml:4', 'goto / passed other.yaml:5', 'screenshot last page passed bcs.defaults.yaml:6']);
  });

  it('bcs plan prints the context a scenario opens, with the options its defaults gave it and where they came from', async () => {
    const project = await inlineFiles({
      'suite/bcs.defaults.yaml': 'context:\n  viewport: { width: 800, height: 600 }\n  locale: de-DE\n',
      'suite/page.yaml': 'name: page\nsteps:\n  - goto: https://example.com/\n',
    });
    const res = await runCli(['plan', project.path('suite/page.yaml')]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('new context {"viewport":{"width":800,"height":600},"locale":"de-DE"}');
    expect(res.stdout).toMatch(/from defaults files\n\s+context\.viewport\s+\S*bcs\.defaults\.yaml:2:3\n\s+context\.locale\s+\S*bcs\.defaults\.yaml:3:3\n/);
  });
});

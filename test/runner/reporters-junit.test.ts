// junit.xml from a real run: a recorded scenario that fails on its first attempt and passes on the retry
// (flaky), and one that fails every time, through `bcs run --retries 1`. The XML is parsed with a real
// parser and checked per step against results.json from the same run.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksScenario } from '../helpers/blocks-scenario.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

type Json = Record<string, any>;

const project = await inlineFiles({});
let svc: TestService;
let site: Server;
let pageLoads = 0;

beforeAll(async () => {
  // The greeting is wrong on the first load only: the first attempt fails, the retry passes.
  site = createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    pageLoads++;
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><title>flaky</title><h1>${pageLoads === 1 ? 'Goodbye' : 'Hello'}</h1>
<button id="oops" onclick="console.error('boom from the page')">oops</button>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  site?.close();
});

/** `bcs run` with these reporters and retries, against the test service. */
async function runReported(paths: string[], names: string, out: string, vars: Record<string, string>, retries: number): Promise<number | null> {
  const args = ['run', ...paths, '--reporter', names, '--output-dir', out, '--retries', String(retries)];
  for (const [k, v] of Object.entries(vars)) args.push('--var', `${k}=${v}`);
  return (await runCli(args, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey })).code;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseAttributeValue: false,
  parseTagValue: false,
  isArray: (name) => ['testsuite', 'testcase', 'property', 'flakyFailure', 'rerunFailure'].includes(name),
});

const props = (node: Json): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const p of node.properties?.property ?? []) (out[p.name] ??= []).push(p.value);
  return out;
};

describe('the junit reporter', () => {
  let xml: string;
  let results: Json;
  let suites: Json[];
  let flakyFile: string;

  beforeAll(async () => {
    await project.write({
      'flaky.yaml': `name: flaky <junit> & "xml"
vars: { site: "http://127.0.0.1:1" }
replay: { record: true, framerate: 5 }
telemetry: { console: true }
steps:
  - goto: "{{ site }}/"
  - screenshot: landing
  - name: press the button
    click: "#oops"
  - sleep: 300ms
  - name: greeting
    expect: { text: Hello, timeout: 500ms }
`,
      'always.yaml': `name: always fails
steps:
  - goto: "data:text/html,<h1>Nope</h1>"
  # Not in the recorded scenario: the service refuses control characters in marker names.
  - name: "look \\a at the \\e[1mpage"
    expect: { text: Nope }
  - name: never there
    expect: { text: Never, timeout: 300ms }
  - goto: "data:text/html,skipped"
`,
      'blocks.yaml': blocksScenario('blocks in junit', { softName: 'soft check' }),
    });
    flakyFile = project.path('flaky.yaml');
    const always = project.path('always.yaml');
    const blocks = project.path('blocks.yaml');
    const out = project.path('out');
    const site = `http://127.0.0.1:${(siteAddress()).port}`;
    const code = await runReported([flakyFile, always, blocks], 'json,junit', out, { site }, 1);
    expect(code).toBe(1);
    xml = await readFile(join(out, 'junit.xml'), 'utf8');
    results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    suites = parser.parse(xml).testsuites.testsuite;
  }, 120_000);

  it('writes well-formed XML 1.0 with no raw control characters', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
  });

  it('has a testsuite per scenario and a testcase per step, with names, classnames and times in seconds', () => {
    expect(results.scenarios.map((s: Json) => s.name)).toEqual(['flaky <junit> & "xml"', 'always fails', 'blocks in junit']);
    expect(suites.map((s) => s.name)).toEqual(['flaky <junit> & "xml"', 'always fails', 'blocks in junit']);
    results.scenarios.forEach((scenario: Json, i: number) => {
      const cases: Json[] = suites[i]!.testcase;
      expect(suites[i]!.tests).toBe(String(scenario.steps.length));
      expect(cases.length).toBe(scenario.steps.length);
      scenario.steps.forEach((step: Json, j: number) => {
        expect(cases[j]!.classname).toBe(scenario.name);
        expect(cases[j]!.time).toBe((step.duration_ms / 1000).toFixed(3));
        expect(props(cases[j]!).location).toEqual([`${step.source.file}:${step.source.line}:${step.source.col}`]);
        expect(props(cases[j]!).request_id ?? []).toEqual(step.request_ids);
      });
    });
    // A control character in a step name is spelled out, a terminal colour code dropped.
    expect(suites[1]!.testcase.map((c: Json) => c.name)).toContain('look \\u0007 at the page');
  });

  it('reports the failure with its kind, message and file:line:col, and the skipped step after it', () => {
    const [always] = results.scenarios.filter((s: Json) => s.name === 'always fails');
    const failedStep = always.steps.find((s: Json) => s.status === 'failed');
    const suite = suites[1]!;
    expect(suite).toMatchObject({ failures: '1', errors: '0', skipped: '1' });
    const tc = suite.testcase.find((c: Json) => c.name === 'never there');
    expect(tc.failure.type).toBe('assertion');
    expect(tc.failure.message).toContain('expected text "Never" to be visible');
    expect(tc.failure['#text']).toContain(failedStep.error.location);
    expect(failedStep.error.location).toBe(`${project.path('always.yaml')}:7:5`);
    const skipped = suite.testcase.find((c: Json) => c.skipped);
    expect(skipped.skipped.message).toBe("skipped: step 'never there' failed");
    // Every attempt failed: the earlier one is a rerun failure of the same testcase.
    expect(tc.rerunFailure).toHaveLength(1);
    expect(tc.rerunFailure[0].type).toBe('assertion');
    expect(tc.rerunFailure[0].stackTrace).toContain(failedStep.error.location);
  });

  it('records the flaky retry as a flakyFailure of the step that failed first', () => {
    const [flaky] = results.scenarios;
    expect(flaky).toMatchObject({ status: 'passed', flaky: true, attempt: 2 });
    const suite = suites[0]!;
    expect(suite).toMatchObject({ failures: '0', errors: '0' });
    expect(props(suite)).toMatchObject({ flaky: ['true'], attempt: ['2'] });
    const greeting = suite.testcase.find((c: Json) => c.name === 'greeting');
    expect(greeting.failure).toBeUndefined();
    expect(greeting.flakyFailure).toHaveLength(1);
    expect(greeting.flakyFailure[0].type).toBe('assertion');
    expect(greeting.flakyFailure[0].message).toContain('expected text "Hello" to be visible');
    expect(greeting.flakyFailure[0]['system-out']).toContain('attempt 1');
    const others = suite.testcase.filter((c: Json) => c.name !== 'greeting');
    expect(others.every((c: Json) => !c.flakyFailure)).toBe(true);
  });

  it('puts replay offsets, the video, artifacts and telemetry notes where CI shows them', () => {
    const [flaky] = results.scenarios;
    const suite = suites[0]!;
    expect(props(suite).replay_video).toEqual([flaky.replay.video]);
    const withOffsets = flaky.steps.filter((s: Json) => s.replay_offset_ms !== undefined);
    expect(withOffsets.length).toBeGreaterThan(2);
    for (const step of withOffsets) {
      const tc = suite.testcase[flaky.steps.indexOf(step)];
      expect(props(tc).replay_offset_ms).toEqual([String(step.replay_offset_ms)]);
    }
    const shot = flaky.steps.find((s: Json) => s.kind === 'screenshot');
    const shotCase = suite.testcase[flaky.steps.indexOf(shot)];
    expect(shotCase['system-out']).toContain(`screenshot: ${shot.artifacts[0].path}`);
    expect(shotCase['system-out']).toContain(`[[ATTACHMENT|${join(project.path('out'), shot.artifacts[0].path)}]]`);
    const outs = suite.testcase.map((c: Json) => c['system-out'] ?? '').join('\n');
    expect(outs).toContain('console_error');
    expect(outs).toContain('boom from the page');
  });
});

describe('the junit reporter with control blocks', () => {
  let suite: Json;
  const tc = (name: string) => suite.testcase.filter((c: Json) => c.name === name);

  beforeAll(async () => {
    const xml = await readFile(join(project.path('out'), 'junit.xml'), 'utf8');
    suite = parser.parse(xml).testsuites.testsuite.find((s: Json) => s.name === 'blocks in junit');
  });

  it('names each pass of a loop, with its depth and iteration', () => {
    for (const i of [1, 2]) {
      const [round] = tc(`round ${i} #${i}`);
      expect(props(round)).toMatchObject({ depth: ['1'], iteration: [String(i)] });
      expect(round.failure).toBeUndefined();
    }
  });

  it('fails the testsuite for the soft failure only', () => {
    expect(suite).toMatchObject({ failures: '1', errors: '0' });
    const [soft] = tc('soft check');
    expect(soft.failure.message).toMatch(/^soft: expected text "Nope" to be visible/);
    expect(props(soft).continued).toEqual(['soft']);
    // The ignored failure is told, not counted.
    const [ignored] = tc('maybe there');
    expect(ignored.failure).toBeUndefined();
    expect(props(ignored).continued).toEqual(['ignored']);
    expect(ignored['system-err']).toMatch(/^ignored failure \(continue_on_error\) \[assertion\] at .*blocks\.yaml:10:5/);
    // The retry block's failed first try is superseded by the passing second one.
    const [first] = tc('count the tries #1');
    expect(first.failure).toBeUndefined();
    expect(first['system-err']).toContain('failure, then attempt 1 of 2 failed; the block ran again');
    expect(tc('count the tries #2')[0].failure).toBeUndefined();
  });
});

describe('the junit reporter after --bail', () => {
  it('lists the scenario that never started as a skipped testsuite, and the summary says so', async () => {
    await project.write({
      'bail-first.yaml': 'name: bail first\nsteps:\n  - expect: { title: Nope, timeout: 200ms }\n',
      'bail-second.yaml': 'name: bail second\nsteps:\n  - sleep: 10ms\n',
    });
    const first = project.path('bail-first.yaml');
    const second = project.path('bail-second.yaml');
    const out = project.path('bail-out');
    const res = await runCli(['run', first, second, '--bail', '--reporter', 'list,junit', '--output-dir', out], {
      BCS_BASE_URL: svc.baseUrl,
      BCS_API_KEY: svc.apiKey,
    });
    expect(res.code).toBe(1);
    const xml = await readFile(join(out, 'junit.xml'), 'utf8');
    const doc = parser.parse(xml).testsuites;
    const never = doc.testsuite.find((s: Json) => s.name === 'bail second');
    expect(never).toMatchObject({ tests: '1', skipped: '1', failures: '0' });
    expect(never.testcase[0].skipped.message).toBe('not started: bail');
    expect(Number(doc.skipped)).toBeGreaterThanOrEqual(1);
    expect(res.stdout).toMatch(/^0 passed, 1 failed, 1 skipped \(/m);
    expect(res.stdout).toContain('not started: bail second (bail)');
    expect(res.stdout).toContain(`reports: ${join(out, 'junit.xml')}`);
  });
});

function siteAddress(): AddressInfo {
  return site.address() as AddressInfo;
}

// The console reporter as people see it. On a terminal (a real PTY for the CLI, and a terminal emulator
// for scenarios running at once): the live tree is redrawn in place and leaves each scenario behind
// exactly once, with nothing of the spinner left; colour follows NO_COLOR. Off a terminal: plain lines,
// prefixed with the scenario's name when several run at once. And the summary.
import xtermHeadless from '@xterm/headless';
import { spawn as spawnPty } from 'node-pty';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleReporter } from '../../runner/reporters/console.js';
import { createReporters } from '../../runner/reporters/index.js';
import { runScenarios } from '../../runner/suite/run.js';
import { blocksScenario } from '../helpers/blocks-scenario.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const { Terminal } = xtermHeadless;
type Term = InstanceType<typeof Terminal>;

let svc: TestService;
let site: Server;
let pageLoads = 0;

const FAILING = `name: tty failure
steps:
  - goto: "data:text/html,<h1>Hello</h1>"
  - sleep: 300ms
  - name: never there
    expect: { text: Never, timeout: 400ms }
  - goto: "data:text/html,skipped"
`;

const BLOCKS = blocksScenario('blocks in the report');

const project = await inlineFiles({
  'failing.yaml': FAILING,
  'passing.yaml': 'name: tty pass\nsteps:\n  - goto: "data:text/html,<h1>Hi</h1>"\n  - sleep: 300ms\n',
});

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url !== '/') return void res.writeHead(404).end();
    pageLoads++;
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>${pageLoads === 1 ? 'Goodbye' : 'Hello'}</h1>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
  site?.close();
});

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
const COLOUR = /\x1b\[(3\d|1|2)m/;
const CURSOR_UP = /\x1b\[\d+A/;

/** The terminal's final text, scrollback included, wrapped rows joined back into their lines. */
function screen(term: Term): string[] {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i)!;
    const text = line.translateToString(true);
    if (line.isWrapped && lines.length) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length && lines.at(-1) === '') lines.pop();
  return lines;
}

const count = (lines: string[], pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;

/** `bcs run` in a real pseudo-terminal, its output played into a terminal emulator of the same size. */
async function runInPty(file: string, env: Record<string, string>): Promise<{ code: number; raw: string; lines: string[] }> {
  const cols = 90;
  const rows = 24;
  const term = new Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
  const base = { ...process.env } as Record<string, string>;
  delete base.NO_COLOR;
  delete base.FORCE_COLOR;
  const child = spawnPty(process.execPath, ['runner/bcs.js', 'run', file], {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: ROOT,
    env: { ...base, BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, ...env },
  });
  let raw = '';
  child.onData((d) => {
    raw += d;
    term.write(d);
  });
  const code = await new Promise<number>((resolve) => child.onExit((e) => resolve(e.exitCode)));
  await new Promise<void>((r) => term.write('', r));
  return { code, raw, lines: screen(term) };
}

describe('on a terminal', () => {
  it('redraws a live tree in place and leaves the finished scenario, its failure and the summary', async () => {
    const { code, raw, lines } = await runInPty(project.path('failing.yaml'), {});
    expect(code, raw).toBe(1);
    expect(raw).toMatch(CURSOR_UP);
    expect(raw).toMatch(SPINNER);
    // Colour on a terminal without NO_COLOR.
    expect(raw).toMatch(COLOUR);
    const text = lines.join('\n');
    expect(lines.some((l) => SPINNER.test(l)), text).toBe(false);
    expect(count(lines, /^tty failure {2}/), text).toBe(1);
    expect(count(lines, /^ {2}✓ goto data:text\/html,<h1>Hello<\/h1> {2}(\d+ ms|[\d.]+ s)$/), text).toBe(1);
    expect(count(lines, /^ {2}✓ sleep 300ms {2}(\d+ ms|[\d.]+ s)$/), text).toBe(1);
    expect(count(lines, /^ {2}✗ never there {2}(\d+ ms|[\d.]+ s)$/), text).toBe(1);
    expect(count(lines, /^ {2}- goto data:text\/html,skipped {2}skipped: step 'never there' failed$/), text).toBe(1);
    expect(count(lines, /^ {2}failed in /), text).toBe(1);
    const summary = lines.findIndex((l) => /^0 passed, 1 failed \(/.test(l));
    expect(summary, text).toBeGreaterThan(0);
    expect(lines.slice(summary)).toEqual(
      expect.arrayContaining(['Failures:', '  1) tty failure › never there [assertion]', `     at ${project.path('failing.yaml')}:5:5`]),
    );
  });

  it('writes no colour with NO_COLOR, and still redraws', async () => {
    const { code, raw, lines } = await runInPty(project.path('passing.yaml'), { NO_COLOR: '1' });
    expect(code, raw).toBe(0);
    expect(raw).not.toMatch(COLOUR);
    expect(raw).toMatch(CURSOR_UP);
    expect(count(lines, /^ {2}✓ sleep 300ms/)).toBe(1);
    expect(lines.some((l) => /^1 passed, 0 failed \(/.test(l))).toBe(true);
  });
});

describe('scenarios running at once, one of them retried', () => {
  let ttyLines: string[];
  let ttyRaw = '';
  let plain = '';
  let out: string;

  beforeAll(async () => {
    await project.write({
      'flaky.yaml': `name: flaky greeting
vars: { site: "http://127.0.0.1:1" }
steps:
  - goto: "{{ site }}/"
  - name: greeting
    expect: { text: Hello, timeout: 3s }
`,
    });
    // A narrow, short terminal: lines must be cut to fit and the tree trimmed to the rows it has. No PTY
    // in between here to turn \n into \r\n, so the emulator does it.
    const term = new Terminal({ cols: 70, rows: 16, scrollback: 5000, allowProposedApi: true, convertEol: true });
    const ttyOut = { columns: 70, rows: 16, write: (s: string) => ((ttyRaw += s), term.write(s), true) };
    out = project.path('concurrent-out');
    const reporters = [
      ...createReporters(['list', 'json', 'junit', 'html'], out, { stdout: ttyOut, tty: true, color: false, workers: 2 }),
      consoleReporter({ write: (s: string) => ((plain += s), true) }, { tty: false, color: false, workers: 2 }),
    ];
    const outcome = await runScenarios({
      paths: [join(ROOT, 'scenarios/quickstart.yaml'), project.path('flaky.yaml')],
      vars: { site: `http://127.0.0.1:${(site.address() as AddressInfo).port}` },
      workers: 2,
      retries: 1,
      outputDir: out,
      reporters,
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      signal: new AbortController().signal,
    });
    expect(outcome.exitCode).toBe(0);
    await new Promise<void>((r) => term.write('', r));
    ttyLines = screen(term);
  }, 120_000);

  it('drew both running scenarios in one frame, trimmed to the terminal', () => {
    const frames = ttyRaw.split('\x1b[J');
    const both = frames.filter((f) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] quickstart/.test(f) && /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] flaky greeting/.test(f));
    expect(both.length).toBeGreaterThan(0);
    expect(ttyRaw).toMatch(/… \d+ earlier steps?/);
    // No drawn line is wider than the terminal, so moving up by the line count lands where the tree began.
    for (const frame of frames) {
      const drawn = frame.split('\x1b[')[0]!.split('\n');
      for (const l of drawn.filter((d) => SPINNER.test(d))) expect([...l].length).toBeLessThanOrEqual(69);
    }
  });

  it('leaves each scenario behind once, complete, with the retry and the flaky outcome', () => {
    const text = ttyLines.join('\n');
    expect(ttyLines.some((l) => SPINNER.test(l)), text).toBe(false);
    expect(count(ttyLines, /^quickstart {2}/), text).toBe(1);
    for (const step of ['✓ serve site', '✓ expect text "Hello, Ada!"', '✓ screenshot greeted', '✓ stop serving site']) {
      expect(count(ttyLines, new RegExp(`^ {2}${step.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} {2}`)), `${step}\n${text}`).toBe(1);
    }
    // Playwright's own timeout usually reports first; on a loaded machine the step's deadline may.
    expect(count(ttyLines, /^ {2}↻ attempt 1 failed: 'greeting' (expected text "Hello" to be visible|step timed out after 3000 ms)/), text).toBe(1);
    expect(count(ttyLines, /^ {2}passed in .* \(flaky: passed on attempt 2\)$/), text).toBe(1);
    expect(count(ttyLines, /^ {2}✓ greeting {2}/), text).toBe(1);
  });

  it('ends with the summary: counts with the flaky one, and where the reports are', () => {
    const text = ttyLines.join('\n');
    expect(text).toMatch(/^1 passed, 0 failed, 1 flaky \(/m);
    expect(text).toContain(`reports: ${join(out, 'results.json')}, ${join(out, 'junit.xml')}, ${join(out, 'report.html')}`);
    expect(text).toContain(`artifacts: ${out}/`);
  });

  it('writes plain lines with the scenario name in front of each', async () => {
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const stepsOf = (s: { steps: unknown[]; previous_attempts?: { steps: unknown[] }[] }) =>
      s.steps.length + (s.previous_attempts ?? []).reduce((n, a) => n + a.steps.length, 0);
    const lines = plain.split('\n').filter((l) => /^\[[^\]]+\] {3}[✓✗-] /.test(l));
    const of = (name: string) => lines.filter((l) => l.startsWith(`[${name}] `)).length;
    for (const scenario of results.scenarios) expect(of(scenario.name), scenario.name).toBe(stepsOf(scenario));
    // Both attempts of the flaky one.
    expect(results.scenarios.find((s: { name: string }) => s.name === 'flaky greeting').previous_attempts).toHaveLength(1);
    expect(lines.length).toBe(results.scenarios.reduce((n: number, s: never) => n + stepsOf(s), 0));
    expect(plain).not.toMatch(/\x1b/);
    expect(plain).toContain('[flaky greeting]   ↻ retrying (attempt 2)');
  });
});

describe('off a terminal', () => {
  it('indents steps inside blocks, labels passes, marks soft, ignored and retried failures', async () => {
    await project.write({ 'blocks.yaml': BLOCKS });
    const res = await runCli(['run', project.path('blocks.yaml')], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(1);
    const lines = res.stdout.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
    const header = at(/^ {2}▸ repeat /);
    expect(header, res.stdout).toBeGreaterThan(0);
    expect(lines[header + 1]).toMatch(/^ {4}✓ round 1 #1 {2}(\d+ ms|[\d.]+ s)$/);
    expect(lines[header + 2]).toMatch(/^ {4}✓ round 2 #2 {2}(\d+ ms|[\d.]+ s)$/);
    expect(lines[header + 3]).toMatch(/^ {2}✓ repeat .* {2}(\d+ ms|[\d.]+ s)$/);
    expect(lines[at(/^ {2}✗ maybe there /)]).toMatch(/\(ignored: continue_on_error\)$/);
    expect(lines[at(/^ {2}✗ expect_soft /)]).toMatch(/\(soft: the scenario fails at the end\)$/);
    expect(lines[at(/^ {4}✗ count the tries #1 /) + 1]).toBe('        expected result equals 2, got 1');
    expect(lines[at(/^ {2}✓ retry /)]).toMatch(/\(2 attempts\)$/);
    // Only the soft failure failed the scenario: the ignored one and the retried one are not listed.
    const failures = lines.slice(at(/^Failures:$/));
    const listed = failures.filter((l) => /^ {2}\d\) /.test(l));
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatch(/^ {2}1\) blocks in the report › .*"Nope".* \[assertion\]$/);
  });

  it('writes one line per finished step, the failure under it, and the summary', async () => {
    const res = await runCli(['run', project.path('failing.yaml')], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(1);
    expect(res.stdout).not.toMatch(/\x1b/);
    const lines = res.stdout.split('\n');
    const failed = lines.findIndex((l) => /^ {2}✗ never there {2}(\d+ ms|[\d.]+ s)$/.test(l));
    expect(failed).toBeGreaterThan(0);
    expect(lines[failed + 1]).toBe('      expected text "Never" to be visible: element(s) not found (waited 400 ms)');
    // Playwright's details follow the line, then where the step is written.
    const details = lines.slice(failed + 2, lines.findIndex((l, i) => i > failed && /^ {6}at /.test(l)) + 1);
    expect(details).toContain("      Locator: getByText('Never').visible().first()");
    expect(details.at(-1)).toBe(`      at ${project.path('failing.yaml')}:5:5`);
    expect(res.stdout).toMatch(/^0 passed, 1 failed \(/m);
    expect(res.stdout).toContain('Failures:\n  1) tty failure › never there [assertion]');
  });
});

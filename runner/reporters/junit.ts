// `--reporter junit`: <output-dir>/junit.xml in the JUnit XML dialect CI servers read (Jenkins, GitLab,
// GitHub test reporters, Surefire's schema): a <testsuite> per scenario and a <testcase> per step.
//
// Earlier attempts of a retried scenario follow Surefire: a step that failed before and passed in the end
// carries them as <flakyFailure>, one that failed every time as <failure> plus a <rerunFailure> each.
// A failure the scenario ignored (`continue_on_error`) is no <failure> (it did not fail the run) but is
// in the testcase's <system-err> and its `continued` property.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { RunReporter } from './reporter.js';
import { RETRIED_AWAY, type FailureKind, type RunResult, type ScenarioResult, type StepResult } from './results.js';
import { counts } from './summary.js';
import { firstLine, plainText } from './text.js';

/** Kinds that are the system's fault rather than the scenario's: JUnit's <error>, not <failure>. */
const ERROR_KINDS: FailureKind[] = ['infrastructure', 'interrupted'];

export function junitReporter(outputDir: string): RunReporter & { file: string } {
  const file = join(outputDir, 'junit.xml');
  return {
    name: 'junit',
    file,
    files: [file],
    async runFinished(run) {
      await mkdir(outputDir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      await writeFile(partial, junitXml(run, outputDir));
      await rename(partial, file);
    },
  };
}

/** The report as text. `outputDir` makes artifact paths absolute for CI attachment plugins. */
export function junitXml(run: RunResult, outputDir: string): string {
  // XML 1.0 cannot hold most control characters even escaped; they become a visible \uXXXX instead.
  // Loaded here: most runs write no JUnit report, and xmlbuilder2 takes a tenth of a second to load.
  const { create } = createRequire(import.meta.url)('xmlbuilder2') as typeof import('xmlbuilder2');
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: (c: string) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}` });
  const counts = run.scenarios.map(suiteCounts);
  const skippedSuites = notStarted(run).length;
  const sum = (k: keyof SuiteCounts) => counts.reduce((n, c) => n + c[k], 0) + (k === 'tests' || k === 'skipped' ? skippedSuites : 0);
  const root = doc.ele('testsuites', {
    name: 'bcs',
    tests: String(sum('tests')),
    failures: String(sum('failures')),
    errors: String(sum('errors')),
    skipped: String(sum('skipped')),
    time: seconds(run.duration_ms),
    timestamp: run.started_at,
  });
  run.scenarios.forEach((scenario, i) => addSuite(root, scenario, counts[i]!, i, outputDir));
  // Scenarios that never started (--bail, Ctrl-C) still show up in CI, as skipped.
  notStarted(run).forEach((n, i) => {
    const suite = root.ele('testsuite', { name: text(n.name), id: String(run.scenarios.length + i), tests: '1', failures: '0', errors: '0', skipped: '1', time: '0.000', file: text(n.file) });
    suite.ele('testcase', { name: 'not started', classname: text(n.name), time: '0.000', file: text(n.file) }).ele('skipped', { message: text(`not started: ${n.reason}`) });
  });
  return doc.end({ prettyPrint: true });
}

interface SuiteCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function suiteCounts(s: ScenarioResult): SuiteCounts {
  const failed = s.steps.filter((st) => counts(st) && st.error);
  return {
    tests: s.steps.length,
    failures: failed.filter((st) => !ERROR_KINDS.includes(st.error!.kind)).length,
    errors: failed.filter((st) => ERROR_KINDS.includes(st.error!.kind)).length,
    skipped: s.steps.filter((st) => st.status === 'skipped').length,
  };
}

function addSuite(root: XMLBuilder, s: ScenarioResult, counts: SuiteCounts, id: number, outputDir: string): void {
  const suite = root.ele('testsuite', {
    name: text(s.name),
    id: String(id),
    tests: String(counts.tests),
    failures: String(counts.failures),
    errors: String(counts.errors),
    skipped: String(counts.skipped),
    time: seconds(s.duration_ms),
    timestamp: s.started_at,
    file: text(s.file),
  });
  const props: Array<[string, unknown]> = [
    ['file', s.file],
    ['status', s.status],
    ['tags', s.tags.length ? s.tags.join(',') : undefined],
    ['session_id', s.session_id],
    ['artifact_dir', s.artifact_dir],
    ['replay_video', s.replay?.video],
    ['replay_vtt', s.replay?.vtt],
    ['attempt', s.attempt],
    ['flaky', s.flaky],
    ['timed_out', s.timed_out],
    ['interrupted', s.interrupted || undefined],
    ['hook', (s as { hook?: string }).hook],
  ];
  addProperties(suite, props);
  for (const step of s.steps) addCase(suite, s, step, outputDir);
  const out: string[] = [];
  if (s.replay) out.push(`replay: ${s.replay.video}${s.replay.vtt ? ` (markers: ${s.replay.vtt})` : ''}`, attachment(outputDir, s.replay.video));
  if (s.previous_attempts?.length) out.push(`ran ${s.previous_attempts.length + 1} times; earlier attempts: ${s.previous_attempts.map(attemptLine).join('; ')}`);
  if (out.length) suite.ele('system-out').txt(text(out.join('\n')));
}

function addCase(suite: XMLBuilder, s: ScenarioResult, step: StepResult, outputDir: string): void {
  const tc = suite.ele('testcase', {
    name: text(step.iteration !== undefined ? `${step.name} #${step.iteration}` : step.name),
    classname: text(s.name),
    time: seconds(step.duration_ms),
    file: text(step.source.file),
    line: String(step.source.line),
  });
  addProperties(tc, [
    ['phase', step.phase],
    ['kind', step.kind],
    ['location', `${step.source.file}:${step.source.line}:${step.source.col}`],
    ['replay_offset_ms', step.replay_offset_ms],
    ['depth', step.depth || undefined],
    ['iteration', step.iteration],
    ['attempts', step.attempts],
    ['continued', step.continued],
    ...step.request_ids.map((id): [string, unknown] => ['request_id', id]),
  ]);

  const earlier = (s.previous_attempts ?? [])
    .map((a) => ({ attempt: a.attempt, step: a.steps.find((st) => st.index === step.index && st.iteration === step.iteration) }))
    .filter((e): e is { attempt: number | undefined; step: StepResult } => e.step !== undefined && counts(e.step));
  const failedNow = counts(step) && step.error !== undefined;
  if (failedNow) {
    const e = step.error!;
    const prefix = step.continued === 'soft' ? 'soft: ' : '';
    tc.ele(ERROR_KINDS.includes(e.kind) ? 'error' : 'failure', { message: text(prefix + firstLine(e.message)), type: e.kind }).txt(
      text(`${e.location}\n${e.message}`),
    );
  }
  if (step.status === 'skipped') tc.ele('skipped', { message: text(step.note ?? 'skipped') });
  for (const { attempt, step: before } of earlier) {
    const e = before.error!;
    const rerun = tc.ele(failedNow ? 'rerunFailure' : 'flakyFailure', { message: text(firstLine(e.message)), type: e.kind });
    rerun.ele('stackTrace').txt(text(`${e.location}\n${e.message}`));
    const shots = before.artifacts.map((a) => `${a.type}: ${a.path}`);
    rerun.ele('system-out').txt(text([`attempt ${attempt ?? '?'}`, ...shots].join('\n')));
  }

  const out: string[] = [];
  for (const a of step.artifacts) out.push(`${a.type}: ${a.path}`, attachment(outputDir, a.path));
  for (const t of step.telemetry ?? []) out.push(`${t.type} at ${t.at}: ${t.message}`);
  if (step.output !== undefined) out.push(`returned: ${JSON.stringify(step.output)}`);
  if (out.length) tc.ele('system-out').txt(text(out.join('\n')));
  if (step.error && !failedNow) {
    const why = step.continued === 'ignored' ? 'ignored failure (continue_on_error)' : `failure, then ${step.note ?? RETRIED_AWAY}`;
    tc.ele('system-err').txt(text(`${why} [${step.error.kind}] at ${step.error.location}\n${step.error.message}`));
  }
}

/** The run's scenarios that never started (a field of the suite runner's result). */
function notStarted(run: RunResult): Array<{ name: string; file: string; reason: string }> {
  return (run as { skipped?: Array<{ name: string; file: string; reason: string }> }).skipped ?? [];
}

function addProperties(parent: XMLBuilder, props: Array<[string, unknown]>): void {
  const present = props.filter(([, v]) => v !== undefined && v !== null && v !== '');
  if (!present.length) return;
  const el = parent.ele('properties');
  for (const [name, value] of present) el.ele('property', { name, value: text(String(value)) });
}

function attemptLine(a: ScenarioResult): string {
  const failed = a.steps.find(counts);
  return `attempt ${a.attempt ?? '?'} ${a.status}${failed ? ` at '${failed.name}' (${failed.error?.location})` : ''}`;
}

/** Jenkins' JUnit attachments plugin picks files up from this line. */
function attachment(outputDir: string, path: string): string {
  return `[[ATTACHMENT|${resolve(outputDir, path)}]]`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Reports are not terminals: colour codes go (the other control characters are replaced by the builder). */
function text(value: string): string {
  return plainText(value);
}

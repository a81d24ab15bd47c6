// How the console reporter writes steps, scenarios and the run's summary, as lines. Shared by the live
// tree (a terminal) and the plain lines (logs, CI), so both read the same.
import { relative, sep } from 'node:path';
import type { RunResult, ScenarioResult, StepResult } from './results.js';
import { codeFrame } from './code-frame.js';
import { counts, failuresOf, runStats } from './summary.js';
import { firstLine, formatMs, plainText, plural } from './text.js';

export interface Paint {
  green(t: string): string;
  red(t: string): string;
  yellow(t: string): string;
  cyan(t: string): string;
  dim(t: string): string;
  bold(t: string): string;
}

export function painter(color: boolean): Paint {
  const paint = (code: number) => (t: string) => (color ? `\x1b[${code}m${t}\x1b[0m` : t);
  return { green: paint(32), red: paint(31), yellow: paint(33), cyan: paint(36), dim: paint(2), bold: paint(1) };
}

/** Whether colour is wanted: a terminal, unless NO_COLOR is set (https://no-color.org); FORCE_COLOR wins. */
export function wantsColor(tty: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  if (env.NO_COLOR) return false;
  return tty;
}

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Two spaces under the scenario, two more for each control block the step is inside. */
export function indentOf(depth: number | undefined): string {
  return '  '.repeat(1 + (depth ?? 0));
}

export function iterationLabel(iteration: number | undefined, p: Paint): string {
  return iteration !== undefined ? p.dim(` #${iteration}`) : '';
}

/** `✓ name #2  120 ms (3 attempts)`: one line, no details. */
export function stepLine(r: StepResult, p: Paint): string {
  const mark = r.status === 'passed' ? p.green('✓') : r.status === 'skipped' ? p.dim('-') : counts(r) ? p.red('✗') : p.yellow('✗');
  const name = r.phase === 'main' ? r.name : p.dim(r.name);
  const time = r.status === 'skipped' ? p.dim(r.note ?? 'skipped') : p.dim(formatMs(r.duration_ms));
  let extra = '';
  if (r.attempts && r.attempts > 1) extra += p.yellow(` (${plural(r.attempts, 'attempt')})`);
  if (r.continued === 'soft') extra += p.yellow(' (soft: the scenario fails at the end)');
  if (r.continued === 'ignored') extra += p.yellow(' (ignored: continue_on_error)');
  // Skipped steps show their note as their time; others have one when a block explains itself.
  if (r.status !== 'skipped' && r.note) extra += p.dim(` (${r.note})`);
  return `${indentOf(r.depth)}${mark} ${name}${iterationLabel(r.iteration, p)}  ${time}${extra}`;
}

/**
 * What goes under a step: its error and where it is written, artifacts, telemetry notes, the value a
 * function returned. `brief` keeps the first line of an error (the live tree has no room for call logs).
 */
export function stepDetails(r: StepResult, p: Paint, brief = false, telemetry = true): string[] {
  const pad = `${indentOf(r.depth)}    `;
  const lines: string[] = [];
  if (r.error) {
    const message = plainText(r.error.message);
    const text = brief ? [firstLine(message)] : message.split('\n');
    const colour = counts(r) ? p.red : p.yellow;
    lines.push(...text.map((l) => pad + colour(l)));
    lines.push(pad + p.dim(`at ${r.error.location}`));
  }
  if (brief) return lines;
  for (const a of r.artifacts) lines.push(pad + p.dim(`${a.type}: ${a.path}`));
  if (telemetry) lines.push(...telemetryLines(r, p, pad));

  if (r.output !== undefined) {
    const json = JSON.stringify(r.output);
    lines.push(pad + p.dim(`returned ${json.length > 200 ? `${json.slice(0, 200)}…` : json}`));
  }
  return lines;
}

function telemetryLines(r: StepResult, p: Paint, pad: string): string[] {
  return (r.telemetry ?? []).map((t) => pad + p.yellow(`${t.type}: ${firstLine(plainText(t.message))}`));
}

/**
 * Telemetry is read when the browser goes, after the step lines were printed: plain output lists it once
 * the scenario is done, under the step each note belongs to.
 */
export function telemetryAfterward(r: ScenarioResult, p: Paint): string[] {
  const steps = r.steps.filter((s) => s.telemetry?.length);
  if (!steps.length) return [];
  return [`  ${p.yellow('telemetry')}`, ...steps.flatMap((s) => [`    during ${s.name} ${p.dim(`(line ${s.source.line}:${s.source.col})`)}`, ...telemetryLines(s, p, '      ')])];
}

/** `passed in 3.1 s (flaky: passed on attempt 2)` */
export function scenarioOutcome(r: ScenarioResult, p: Paint): string {
  const label = r.status === 'passed' ? p.green('passed') : r.status === 'failed' ? p.red('failed') : p.red('error (infrastructure)');
  let line = `${label} ${p.dim(`in ${formatMs(r.duration_ms)}`)}`;
  if (r.flaky) line += p.yellow(` (flaky: passed on attempt ${r.attempt ?? 2})`);
  else if (r.attempt && r.attempt > 1) line += p.dim(` (attempt ${r.attempt})`);
  if (r.timed_out) line += p.red(' (timed out)');
  if (r.interrupted) line += p.red(' (interrupted)');
  return line;
}

/** The whole of a finished scenario, as the plain reporter writes it and the live tree leaves it behind. */
export function scenarioBlock(r: ScenarioResult, p: Paint): string[] {
  const lines = [scenarioHeader(r, p)];
  for (const step of r.steps) lines.push(stepLine(step, p), ...stepDetails(step, p));
  lines.push(...traceLines(r, p), `  ${scenarioOutcome(r, p)}`);
  return lines;
}

/** Where the scenario's Playwright trace is, and how to open it. */
export function traceLines(r: ScenarioResult, p: Paint): string[] {
  return r.trace ? [`  ${p.dim(`trace: ${r.trace}  (bcs show-trace <output-dir>/${r.trace})`)}`] : [];
}

/** `name  file`, and which suite hook it is (bcs.config.yaml `before`/`after`) when it is one. */
export function scenarioHeader(r: { name: string; file: string; hook?: string }, p: Paint): string {
  return `${p.bold(r.name)}  ${p.dim(r.file)}${r.hook ? p.dim(`  (${r.hook} hook)`) : ''}`;
}

/** A failed attempt that is about to be retried: which step failed, in one or two lines. */
export function retryLines(failed: ScenarioResult, nextAttempt: number, p: Paint): string[] {
  const step = failed.steps.find(counts);
  const what = step?.error ? `'${step.name}' ${firstLine(plainText(step.error.message))}` : failed.timed_out ? 'timed out' : failed.status;
  const lines = [`  ${p.yellow('↻')} ${p.yellow(`attempt ${nextAttempt - 1} failed`)}: ${what}`];
  if (step?.error) lines.push(`      ${p.dim(`at ${step.error.location}`)}`);
  lines.push(`  ${p.yellow('↻')} ${p.yellow(`retrying (attempt ${nextAttempt})`)}`);
  return lines;
}

export interface SummaryOptions {
  /** How many scenarios were planned, to count the ones that never ran. */
  planned: number;
  /** Report files written, shown relative to the working directory. */
  reports: string[];
  outputDir?: string;
  /** How many failures to spell out. */
  maxFailures?: number;
}

export function summaryLines(run: RunResult, p: Paint, opts: SummaryOptions): string[] {
  const s = runStats(run, opts.planned);
  const parts = [p.green(`${s.passed} passed`), (s.failed ? p.red : p.dim)(`${s.failed} failed`)];
  if (s.flaky) parts.push(p.yellow(`${s.flaky} flaky`));
  if (s.skipped) parts.push(p.yellow(`${s.skipped} skipped`));
  if (s.errored) parts.push(p.red(`${s.errored} errored`));
  if (s.timedOut) parts.push(p.red(`${s.timedOut} timed out`));
  if (s.interrupted) parts.push(p.red(`${s.interrupted} interrupted`));
  // Scenarios that ran at once add up to more than the wall time; say both so the speed-up shows.
  const parallel = s.scenarioMs > run.duration_ms * 1.2 ? `, ${formatMs(s.scenarioMs)} of scenario time` : '';
  const lines = ['', `${parts.join(', ')} ${p.dim(`(${formatMs(run.duration_ms)}${parallel})`)}`];
  const notStarted = (run as { skipped?: Array<{ name: string; reason: string; note?: string }> }).skipped ?? [];
  if (notStarted.length) {
    const names = notStarted.slice(0, 5).map((n) => `${n.name} (${n.note ? `${n.reason}: ${n.note}` : n.reason})`);
    lines.push(`${p.yellow('not started:')} ${names.join(', ')}${notStarted.length > 5 ? `, … ${notStarted.length - 5} more` : ''}`);
  }

  const failures = failuresOf(run);
  const max = opts.maxFailures ?? 5;
  if (failures.length) {
    lines.push('', p.bold('Failures:'));
    failures.slice(0, max).forEach((f, i) => {
      const where = f.step ? `${f.scenario.name} › ${f.step.name}` : f.scenario.name;
      lines.push(`  ${i + 1}) ${where} ${p.dim(`[${f.kind}]`)}`);
      lines.push(`     ${p.red(firstLine(plainText(f.message)))}`);
      lines.push(`     ${p.dim(`at ${f.location}`)}`);
      if (f.step) lines.push(...codeFrame(f.location).map((l) => `     ${l.startsWith('>') ? l : p.dim(l)}`));
    });
    if (failures.length > max) lines.push(p.dim(`  … and ${failures.length - max} more`));
  }
  if (opts.reports.length) lines.push('', `${p.dim('reports:')} ${opts.reports.map(display).join(', ')}`);
  if (opts.outputDir && run.scenarios.some((r) => r.steps.some((st) => st.artifacts.length))) {
    lines.push(`${p.dim('artifacts:')} ${display(opts.outputDir)}${sep}`);
  }
  return lines;
}

/** A path as short as it can be said: relative to the working directory when it is under it. */
function display(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

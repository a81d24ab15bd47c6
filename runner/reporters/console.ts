// The console reporter (`--reporter list`). On a terminal: a live tree of every running scenario and its
// steps, redrawn in place, each scenario left behind in full when it finishes. Otherwise (logs, CI): one
// line per finished step, prefixed with the scenario's name once scenarios run at once. Then a summary.
import type { Plan, PlanStep } from '../../src/scenario/plan.js';
import type { RunInfo, RunReporter, RunTargetInfo } from './reporter.js';
import type { RunResult, ScenarioResult, StepResult } from './results.js';
import {
  SPINNER,
  indentOf,
  iterationLabel,
  painter,
  retryLines,
  scenarioBlock,
  scenarioHeader,
  scenarioOutcome,
  stepDetails,
  stepLine,
  summaryLines,
  telemetryAfterward,
  traceLines,
  wantsColor,
  type Paint,
} from './console-format.js';
import { LiveRegion, type Terminal } from './live-region.js';
import { formatMs, plural } from './text.js';

export { formatMs } from './text.js';

export interface ConsoleOptions {
  /** Draw the live tree; default: whether `out` is a terminal. */
  tty?: boolean;
  /** Default: a terminal without NO_COLOR. */
  color?: boolean;
  /** Scenarios run at once (`--workers`): plain lines get the scenario's name from the start. */
  workers?: number;
  /** The files the other reporters write, for the summary. */
  reports?: string[];
  /** Where artifacts go, for the summary. */
  outputDir?: string;
}

/** A step as the tree shows it: running until its result comes. */
interface Row {
  index: number;
  name: string;
  depth?: number;
  /** A control block (`if`, `repeat`, ...): its steps run while it does. */
  block: boolean;
  iteration?: number;
  startedAt: number;
  result?: StepResult;
  /** What the running step says it waits for (`stepProgress`), shown under it. */
  status?: string;
}

interface Scenario {
  name: string;
  file: string;
  startedAt: number;
  attempt: number;
  /** Set by a retry, so the next attempt's scenarioStarted continues this entry instead of starting anew. */
  retrying: boolean;
  rows: Row[];
  /** Blocks started and not finished: a step starting now is that deep (results say so only when done). */
  openBlocks: number;
}

interface View {
  scenarioStarted(s: Scenario): void;
  stepStarted(s: Scenario, row: Row): void;
  stepFinished(s: Scenario, result: StepResult): void;
  stepProgress(s: Scenario, row: Row, detail?: string): void;
  retrying(s: Scenario, failed: ScenarioResult, nextAttempt: number): void;
  scenarioFinished(s: Scenario, result: ScenarioResult): void;
  /** Permanent lines (the run's header and summary). */
  write(lines: string[]): void;
  close(): void;
}

export function consoleReporter(out: Terminal, opts: ConsoleOptions = {}): RunReporter {
  const tty = opts.tty ?? Boolean((out as { isTTY?: boolean }).isTTY);
  const p = painter(opts.color ?? wantsColor(tty));
  const active = new Map<string, Scenario>();
  const run = { planned: 0, concurrent: (opts.workers ?? 1) > 1 };
  const view: View = tty ? liveView(out, p, active) : plainView(out, p, run);

  // A scenario is its file and name: what both a plan and a result carry.
  const keyOf = (file: string, name: string) => `${file}\0${name}`;
  const entry = (file: string, name: string, fresh = false): Scenario => {
    const key = keyOf(file, name);
    let s = active.get(key);
    if (!s || fresh) {
      s = { name, file, startedAt: Date.now(), attempt: 1, retrying: false, rows: [], openBlocks: 0 };
      active.set(key, s);
    }
    return s;
  };
  const forPlan = (plan: Plan) => entry(plan.scenario.file, plan.scenario.name);

  return {
    name: 'list',
    runStarted(target: RunTargetInfo, plans: Plan[], info?: RunInfo) {
      run.planned = plans.length;
      if ((info?.workers ?? 1) > 1) run.concurrent = true;
      const where = target.kind === 'embedded' ? `embedded service (${target.chromium ?? 'chromium'})` : target.base_url;
      const workers = Math.min(info?.workers ?? opts.workers ?? 1, plans.length);
      view.write([p.dim(`running ${plural(plans.length, 'scenario')} on ${where}${workers > 1 ? `, ${workers} at a time` : ''}`)]);
    },
    scenarioStarted(plan: Plan) {
      const existing = active.get(keyOf(plan.scenario.file, plan.scenario.name));
      if (existing?.retrying) {
        existing.retrying = false;
        return;
      }
      // Another scenario still running means the hooks interleave from here on.
      if ([...active.values()].some((s) => s !== existing)) run.concurrent = true;
      view.scenarioStarted(entry(plan.scenario.file, plan.scenario.name, true));
    },
    stepStarted(plan: Plan, step: PlanStep, name: string) {
      const s = forPlan(plan);
      const row: Row = { index: step.index, name, depth: s.openBlocks, block: Boolean(step.block), startedAt: Date.now() };
      if (row.block) s.openBlocks++;
      s.rows.push(row);
      view.stepStarted(s, row);
    },
    stepFinished(plan: Plan, result: StepResult) {
      const s = forPlan(plan);
      const row = s.rows.findLast((r) => r.index === result.index && !r.result);
      if (row) {
        row.result = result;
        if (row.block) s.openBlocks = Math.max(0, s.openBlocks - 1);
      } else s.rows.push({ index: result.index, name: result.name, depth: result.depth, block: false, startedAt: Date.now(), result });
      view.stepFinished(s, result);
    },
    stepProgress(plan: Plan, step: PlanStep, status: string, detail?: string) {
      const s = forPlan(plan);
      const row = s.rows.findLast((r) => r.index === step.index && !r.result);
      if (!row) return;
      row.status = status;
      view.stepProgress(s, row, detail);
    },
    scenarioRetrying(plan: Plan, failed: ScenarioResult, nextAttempt: number) {
      const s = forPlan(plan);
      view.retrying(s, failed, nextAttempt);
      s.rows = [];
      s.openBlocks = 0;
      s.attempt = nextAttempt;
      s.retrying = true;
    },
    scenarioFinished(result: ScenarioResult, plan?: Plan) {
      const file = plan?.scenario.file ?? result.file;
      const name = plan?.scenario.name ?? result.name;
      const s = entry(file, name);
      active.delete(keyOf(file, name));
      view.scenarioFinished(s, result);
    },
    notice(message: string) {
      view.write([p.dim(`bcs: ${message}`)]);
    },
    runFinished(result: RunResult) {
      view.close();
      view.write(summaryLines(result, p, { planned: run.planned, reports: opts.reports ?? [], outputDir: opts.outputDir }));
    },
  };
}

/** Lines as things finish; the scenario's name in front of each once several run at once. */
function plainView(out: Terminal, p: Paint, run: { concurrent: boolean }): View {
  const emit = (s: Scenario | undefined, lines: string[]) => {
    const prefix = s && run.concurrent ? `${p.cyan(`[${s.name}]`)} ` : '';
    out.write(lines.map((l) => `${prefix}${l}\n`).join(''));
  };
  return {
    scenarioStarted(s) {
      if (run.concurrent) emit(s, [p.dim(`started  ${s.file}`)]);
      else emit(undefined, ['', `${p.bold(s.name)}  ${p.dim(s.file)}`]);
    },
    // A block's line comes when it finishes, after its steps: say where it begins too.
    stepStarted(s, row) {
      if (row.block) emit(s, [`${indentOf(row.depth)}${p.dim('▸')} ${row.name}`]);
    },
    stepFinished(s, result) {
      emit(s, [stepLine(result, p), ...stepDetails(result, p, false, false)]);
    },
    stepProgress(s, row, detail) {
      emit(s, [`${indentOf(row.depth)}${p.dim('…')} ${row.name}: ${row.status}`, ...detailLines(row, detail, p)]);
    },
    retrying(s, failed, nextAttempt) {
      emit(s, retryLines(failed, nextAttempt, p));
    },
    scenarioFinished(s, result) {
      emit(s, [...telemetryAfterward(result, p), ...traceLines(result, p), `  ${scenarioOutcome(result, p)}`]);
    },
    write(lines) {
      emit(undefined, lines);
    },
    close() {},
  };
}

/** The running scenarios as a tree at the bottom of the terminal; finished ones are written above it. */
function liveView(out: Terminal, p: Paint, active: Map<string, Scenario>): View {
  const region = new LiveRegion(out);
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = (above: string[] = []) => {
    region.update(above, treeLines([...active.values()], p, frame, region.maxLines));
    if (active.size && !timer) {
      // The spinner and the running steps' clocks move between events too.
      timer = setInterval(() => {
        frame++;
        draw();
      }, 100);
      timer.unref();
    } else if (!active.size && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    scenarioStarted: () => draw(),
    stepStarted: () => draw(),
    stepFinished: () => draw(),
    // The detail goes above the tree, whole: the tree's lines are cut to the terminal's width.
    stepProgress: (s, row, detail) => draw(detail === undefined ? [] : [`${p.cyan(`[${s.name}]`)} ${row.name}:`, ...detailLines(row, detail, p)]),
    retrying(s, failed, nextAttempt) {
      draw(['', scenarioHeader(s, p), ...retryLines(failed, nextAttempt, p)]);
    },
    scenarioFinished(_s, result) {
      draw(['', ...scenarioBlock(result, p)]);
    },
    write: (lines) => draw(lines),
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
      region.clear();
    },
  };
}

/** A progress detail, one indented line per line of it. */
function detailLines(row: Row, detail: string | undefined, p: Paint): string[] {
  return detail === undefined ? [] : detail.split('\n').map((l) => `${indentOf(row.depth)}    ${p.yellow(l)}`);
}

/**
 * The live tree: each scenario's header, then its steps (a spinner on the running ones). When it does not
 * fit the terminal, each scenario keeps its latest steps and says how many earlier ones are hidden.
 */
function treeLines(scenarios: Scenario[], p: Paint, frame: number, maxLines: number, now = Date.now()): string[] {
  const spin = p.cyan(SPINNER[frame % SPINNER.length]!);
  const blocks = scenarios.map((s) => {
    const attempt = s.attempt > 1 ? p.yellow(`  attempt ${s.attempt}`) : '';
    const header = `${spin} ${p.bold(s.name)}  ${p.dim(s.file)}  ${p.dim(formatMs(now - s.startedAt))}${attempt}`;
    const groups = s.rows.map((r) =>
      r.result
        ? [stepLine(r.result, p), ...stepDetails(r.result, p, true)]
        : [
            `${indentOf(r.depth)}${spin} ${r.name}${iterationLabel(r.iteration, p)}  ${p.dim(formatMs(now - r.startedAt))}`,
            ...(r.status ? [`${indentOf(r.depth)}    ${p.yellow(r.status)}`] : []),
          ],
    );
    return { header, groups };
  });
  const size = (b: (typeof blocks)[number]) => 1 + b.groups.reduce((n, g) => n + g.length, 0);
  const total = blocks.reduce((n, b) => n + size(b), 0);
  const allowance = Math.max(2, Math.floor(maxLines / Math.max(1, blocks.length)));
  const lines: string[] = [];
  for (const b of blocks) {
    let hidden = 0;
    // Only trim when the whole tree does not fit; then keep room for the "earlier steps" line.
    while (total > maxLines && b.groups.length > 1 && size(b) + 1 > allowance) {
      b.groups.shift();
      hidden++;
    }
    lines.push(b.header);
    if (hidden) lines.push(p.dim(`    … ${plural(hidden, 'earlier step')}`));
    for (const g of b.groups) lines.push(...g);
  }
  return lines;
}

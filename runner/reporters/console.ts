// The console reporter: a live step list on a terminal (a spinner on the running step, each line
// rewritten with its outcome), plain lines otherwise, and a summary at the end.
import type { Plan, PlanStep } from '../../src/scenario/plan.js';
import type { RunReporter, RunTargetInfo } from '../reporter.js';
import type { RunResult, ScenarioResult, StepResult } from '../results.js';

export interface ConsoleOptions {
  tty: boolean;
  color: boolean;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function consoleReporter(out: NodeJS.WritableStream, opts: ConsoleOptions): RunReporter {
  const paint = (code: number, text: string) => (opts.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const green = (t: string) => paint(32, t);
  const red = (t: string) => paint(31, t);
  const dim = (t: string) => paint(2, t);
  const bold = (t: string) => paint(1, t);
  let spinner: NodeJS.Timeout | undefined;

  const stopSpinner = () => {
    if (spinner) clearInterval(spinner);
    spinner = undefined;
  };
  const stepLine = (r: StepResult) => {
    const mark = r.status === 'passed' ? green('✓') : r.status === 'failed' ? red('✗') : dim('-');
    const name = r.phase === 'main' ? r.name : dim(r.name);
    const time = r.status === 'skipped' ? dim(r.note ?? 'skipped') : dim(formatMs(r.duration_ms));
    let line = `  ${mark} ${name}  ${time}\n`;
    if (r.error) {
      line += `      ${red(r.error.message)}\n      ${dim(`at ${r.error.location}`)}\n`;
    }
    for (const a of r.artifacts) line += `      ${dim(`${a.type}: ${a.path}`)}\n`;
    for (const t of r.telemetry ?? []) line += `      ${paint(33, `${t.type}: ${t.message}`)}\n`;
    return line;
  };

  return {
    runStarted(target: RunTargetInfo, plans: Plan[]) {
      const where = target.kind === 'embedded' ? `embedded service (${target.chromium ?? 'chromium'})` : target.base_url;
      out.write(dim(`running ${plans.length} scenario${plans.length === 1 ? '' : 's'} on ${where}\n`));
    },
    scenarioStarted(plan: Plan) {
      out.write(`\n${bold(plan.scenario.name)}  ${dim(plan.scenario.file)}\n`);
    },
    stepStarted(_plan: Plan, _step: PlanStep, name: string) {
      if (!opts.tty) return;
      let frame = 0;
      const draw = () => out.write(`\r\x1b[2K  ${SPINNER[frame++ % SPINNER.length]} ${name}`);
      draw();
      stopSpinner();
      spinner = setInterval(draw, 80);
      spinner.unref();
    },
    stepFinished(_plan: Plan, result: StepResult) {
      stopSpinner();
      out.write((opts.tty ? '\r\x1b[2K' : '') + stepLine(result));
    },
    scenarioFinished(result: ScenarioResult) {
      const label =
        result.status === 'passed' ? green('passed') : result.status === 'failed' ? red('failed') : red('error (infrastructure)');
      out.write(`  ${label} ${dim(`in ${formatMs(result.duration_ms)}`)}${result.interrupted ? red(' (interrupted)') : ''}\n`);
    },
    runFinished(run: RunResult) {
      const { passed, failed, errored } = run.summary;
      const parts = [green(`${passed} passed`), (failed ? red : dim)(`${failed} failed`)];
      if (errored) parts.push(red(`${errored} errored`));
      out.write(`\n${parts.join(', ')} ${dim(`(${formatMs(run.duration_ms)})`)}\n`);
    },
  };
}

export function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

// Runs the real `bcs` executable (built into dist/ by the global setup) as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** `pipe` leaves the child's stdin open for the test to write to (`--debug`). */
  stdin?: 'ignore' | 'pipe';
  /** Where `bcs` runs (default: the repository). */
  cwd?: string;
}

export function startCli(args: string[], env: Record<string, string> = {}, opts: CliOptions = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [join(ROOT, 'runner', 'bcs.js'), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', BCS_BASE_URL: '', BCS_API_KEY: '', ...env },
    stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

export function runCli(args: string[], env?: Record<string, string>, opts?: CliOptions): Promise<CliResult> {
  return startCli(args, env, opts).done;
}

/**
 * Writes `yaml` as `<dir>/<name>.yaml`, runs it with the list and JSON reporters against the service at
 * `env`, and returns the run, the file and the scenario's main steps from results.json.
 */
export async function runScenarioYaml(dir: string, name: string, yaml: string, env: Record<string, string>, args: string[] = []) {
  const { readFile, writeFile } = await import('node:fs/promises');
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, yaml);
  const out = join(dir, `${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out, ...args], env);
  const text = await readFile(join(out, 'results.json'), 'utf8').catch(() => {
    throw new Error(`no results (exit ${res.code}): ${res.stderr}`);
  });
  const scenario = JSON.parse(text).scenarios[0] as { steps: (import('../../runner/reporters/results.js').StepResult)[] };
  return { res, file, out, main: scenario.steps.filter((s) => s.phase === 'main') };
}

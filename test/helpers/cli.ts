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

/** A running `bcs serve` with its own data dir, once its banner is out; `call` speaks to it with `key`. */
export interface ServeProcess {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  /** What it wrote to stderr so far (the banner, drain and stop lines). */
  stderr(): string;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  /** Resolves when it exits. */
  done: Promise<CliResult>;
}

/** Starts `bcs serve` on port 0 in a fresh data dir (unsandboxed, quiet, no standby) with `args` after those. */
export async function startServe(key: string, args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { eventually } = await import('./service.js');
  const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-'));
  const started = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent', '--standby', '0', ...args], {
    BCS_API_KEY: key,
    ...env,
  });
  let out = '';
  let err = '';
  started.child.stdout!.on('data', (d) => (out += d));
  started.child.stderr!.on('data', (d) => (err += d));
  const baseUrl = await eventually(() => /^BCS_BASE_URL=(\S+)$/m.exec(out)?.[1], 30_000);
  await eventually(() => (err.includes('network policy') ? true : undefined), 30_000);
  const call: ServeProcess['call'] = async (method, path, body) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, headers: res.headers, body: (await res.json().catch(() => undefined)) as any };
  };
  return { child: started.child, baseUrl, dataDir, stderr: () => err, call, done: started.done };
}

// The package's declarations, `tsc -p fixtures/tsconfig.types.json` (prepack's second command, after the
// build), written beside the bundles in dist/. Two files need them: fixtures.test.ts typechecks the
// example against them and package/install.test.ts packs them. The emit type-checks the whole package
// (about a minute of CPU on two cores), so a test run does it once: the first file to ask runs it, under
// a lock in a folder the global setup made for this run (no lock or result of an earlier run is ever
// seen), and any other worker waits for the result it wrote.
import { spawn } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { ROOT } from './cli.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty folder of this test run, for the declaration emit's lock and result. */
    declarationsDir: string;
  }
}

export interface Emitted {
  code: number | null;
  /** tsc's own output: empty when the declarations were written without an error. */
  output: string;
}

/** The command, as package.json's prepack script spells it. */
export const DECLARATIONS_COMMAND = 'tsc -p fixtures/tsconfig.types.json';
const WAIT_MS = 600_000;

let emitted: Promise<Emitted> | undefined;

/** Emits the declarations once per test run; every caller gets the same result. */
export function emitDeclarations(): Promise<Emitted> {
  emitted ??= emitOnce();
  return emitted;
}

async function emitOnce(): Promise<Emitted> {
  const dir = inject('declarationsDir');
  if (!dir) throw new Error('no declarationsDir provided: run this file in the integration project (its global setup makes it)');
  const result = join(dir, 'result.json');
  try {
    await mkdir(join(dir, 'lock'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return waitFor(result);
  }
  const outcome = await tsc();
  // Written whole, then renamed: a waiting worker never reads half of it.
  await writeFile(`${result}.tmp`, JSON.stringify(outcome));
  await rename(`${result}.tmp`, result);
  return outcome;
}

function tsc(): Promise<Emitted> {
  const args = DECLARATIONS_COMMAND.split(' ').slice(1);
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return new Promise((resolve) => {
    child.on('error', (err) => resolve({ code: null, output: `${output}${err.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function waitFor(result: string): Promise<Emitted> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      return JSON.parse(await readFile(result, 'utf8')) as Emitted;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (Date.now() > deadline) throw new Error(`the declaration emit of another worker wrote no result within ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Runs once before all test files: builds dist/ (the CLI tests run the real `bcs`), and resolves
// Chromium once so parallel workers never race to unpack the packaged headless shell. It also makes the
// folder where the first file that needs the package's declarations emits them for the whole run
// (helpers/declarations.ts), and starts the PostgreSQL server the store tests run on.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { findChromium, findHeadlessShell } from '../../src/service/host/browser/chromium-path.js';
import { findPostgres, startPostgres } from './postgres.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['runner/build.mjs'], { cwd: root, stdio: 'inherit' });
  const chromium = await findChromium(process.env.BCS_CHROMIUM);
  const shell = await findHeadlessShell(chromium, process.env.BCS_HEADLESS_SHELL);
  process.stdout.write(`tests use chromium ${chromium.path} (${chromium.source})${shell ? `, plain headless sessions ${shell.path}` : ''}\n`);
  const declarations = await mkdtemp(join(tmpdir(), 'bcs-declarations-'));
  project.provide('declarationsDir', declarations);
  // One PostgreSQL server for the run; each test that needs it makes its own database (helpers/stores.ts).
  const found = findPostgres();
  let missing = 'missing' in found ? found.missing : '';
  const postgres = 'bin' in found ? await startPostgres(found.bin).catch((err: Error) => void (missing = `PostgreSQL did not start: ${err.message}`)) : undefined;
  project.provide('postgres', postgres ? { url: postgres.url } : { missing });
  if (!postgres) process.stdout.write(`tests that need PostgreSQL are skipped: ${missing}\n`);
  return async () => {
    await postgres?.stop();
    await rm(declarations, { recursive: true, force: true });
  };
}

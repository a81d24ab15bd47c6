// Runs once before all test files: builds dist/ (the CLI tests run the real `bcs`), and resolves
// Chromium once so parallel workers never race to unpack the packaged headless shell.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';

export default async function setup(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, ['runner/build.mjs'], { cwd: root, stdio: 'inherit' });
  const chromium = await findChromium(process.env.BCS_CHROMIUM);
  process.stdout.write(`tests use chromium ${chromium.path} (${chromium.source})\n`);
}

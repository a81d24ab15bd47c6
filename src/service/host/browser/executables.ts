// Which Chromium a launch runs: the headless shell for a plain headless browser when there is one, the
// full Chromium for everything the shell cannot do (a screen, extensions, enterprise policies).
import type { ChromiumExecutable } from './chromium-path.js';
import type { LaunchSpec } from './launch-spec.js';

export interface Executables {
  /** Runs every browser the shell cannot; the only one when there is no shell. */
  full: ChromiumExecutable;
  /** Runs plain headless browsers (chromium-path.ts, findHeadlessShell). */
  headlessShell?: ChromiumExecutable;
}

export function executableFor(exes: Executables, spec: LaunchSpec): ChromiumExecutable {
  const needsFull = !spec.headless || spec.extensionIds.length > 0 || spec.extensionDirs.length > 0 || spec.chromePolicy !== null;
  return !needsFull && exes.headlessShell ? exes.headlessShell : exes.full;
}

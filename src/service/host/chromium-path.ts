// Finds the Chromium to launch: the configured path, else a system Chromium or Chrome, else the headless
// shell shipped in the npm package @sparticuz/chromium (so a fresh machine needs no apt and no download).
import { access, constants } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export type ChromiumSource = 'configured' | 'system' | 'npm';

export interface ChromiumExecutable {
  path: string;
  source: ChromiumSource;
  /** The headless shell cannot run headful sessions or load extensions. */
  headlessShell: boolean;
}

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

export async function findChromium(configured?: string, env: NodeJS.ProcessEnv = process.env): Promise<ChromiumExecutable> {
  if (configured) {
    if (!(await isExecutable(configured))) throw new Error(`configured Chromium '${configured}' is not an executable file`);
    return { path: configured, source: 'configured', headlessShell: isHeadlessShell(configured) };
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of SYSTEM_NAMES) {
      const candidate = join(dir, name);
      if (await isExecutable(candidate)) return { path: candidate, source: 'system', headlessShell: false };
    }
  }
  return { path: await extractPackagedShell(), source: 'npm', headlessShell: true };
}

/** The headless shell calls itself so, or is the binary @sparticuz/chromium unpacks into the temp dir. */
function isHeadlessShell(path: string): boolean {
  return /headless[-_]shell|sparticuz/.test(path) || path === join(tmpdir(), 'chromium');
}

let extraction: Promise<string> | undefined;

/** The package inflates its brotli archive into the temp dir on first use; do that once per process. */
function extractPackagedShell(): Promise<string> {
  extraction ??= (async () => {
    try {
      const { default: chromium } = await import('@sparticuz/chromium');
      return await chromium.executablePath();
    } catch (err) {
      extraction = undefined;
      throw new Error(
        `no Chromium found: set --chromium or BCS_CHROMIUM, install chromium, or reinstall @sparticuz/chromium (${(err as Error).message})`,
      );
    }
  })();
  return extraction;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

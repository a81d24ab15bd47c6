// `bcs codegen URL`: records a scenario while someone uses a browser. The browser is a session of the
// embedded service (shown on this display when there is one) or of `--base-url`'s (driven from its live
// view); Playwright's own recorder watches it (src/recorder), and what it records becomes
// steps, written to the file after every action, so an interrupted recording keeps what it had.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiError } from '../../src/api/index.js';
import { recordContext, type ContextRecorder } from '../../src/recorder/record.js';
import { scenarioYaml } from '../../src/recorder/scenario-file.js';
import { translate } from '../../src/recorder/translate.js';
import { startUrl } from '../../src/recorder/start-url.js';
import { EXIT } from '../suite/exit-codes.js';
import { TargetError, openTarget, type Target } from '../suite/target.js';
import { addApiKeyOptions, resolveApiKey } from './api-key.js';
import { packageRoot } from '../suite/package-root.js';
import { UsageError } from './usage-error.js';

type Finish = (code: number) => void;

interface Session {
  session_id: string;
  cdp_ws_url: string;
  browser_live_view_url?: string;
}

export function registerCodegen(program: Command, finish: Finish): void {
  addApiKeyOptions(
    program
      .command('codegen')
      .description("record a scenario: open URL in a browser, and write what you click, type and assert (with the recorder's toolbar) as YAML steps")
      .argument('<url>', 'the page to start on (http://, https:// or file://; a bare host gets http://)')
      .option('-o, --output <file>', 'write the scenario here, after every recorded action (default: print it when the recording ends)')
      .option('--name <name>', "the scenario's name (default: the output file's name, else the URL's host)")
      .option('--viewport <WxH>', 'the page size to record at; the scenario runs at the same', '1280x800')
      .addOption(new Option('--base-url <url>', 'record on a browser of this running service (drive it from its live view) instead of the embedded one').env('BCS_BASE_URL'))
      .addOption(new Option('--chromium <path>', 'Chromium for the embedded service').env('BCS_CHROMIUM'))
      .option('--headless', 'on the embedded service, record on a headless browser driven from its live view even when DISPLAY is set'),
    'the API key for --base-url',
  ).action(async (rawUrl: string, o) => {
    const url = usage(() => startUrl(rawUrl));
    const viewport = parseViewport(String(o.viewport));
    const output = o.output ? resolve(String(o.output)) : undefined;
    const name = String(o.name ?? (output ? basename(output, extname(output)) : new URL(url).hostname || 'recorded'));
    const display = !o.baseUrl && !o.headless ? hostDisplay() : undefined;
    const say = (m: string) => process.stderr.write(`bcs: ${m}\n`);

    const apiKey = resolveApiKey(o);
    let target: Target;
    try {
      target = await openTarget({ baseUrl: o.baseUrl || undefined, apiKey, chromium: o.chromium || undefined, display });
    } catch (err) {
      if (err instanceof TargetError && o.baseUrl && !apiKey) throw new UsageError(err.message);
      say((err as Error).message);
      return finish(EXIT.infrastructure);
    }
    let session: Session | undefined;
    let browser: Browser | undefined;
    let code: number = EXIT.passed;
    try {
      session = (await target.client.request<Session>('POST', '/browsers', { body: { headless: !display, viewport } })).data;
      const { chromium } = await import('playwright-core');
      browser = await chromium.connectOverCDP(session.cdp_ws_url);
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      // From here on Ctrl-C ends the recording (and releases the browser) rather than the process.
      const done = finished(browser, context);

      let recorder: ContextRecorder | undefined;
      const write = () => {
        const { steps, skipped } = translate(recorder?.recording.actions ?? [], url);
        const text = scenarioYaml({ name, file: output, schemaPath: join(packageRoot(), 'src/scenario/scenario.schema.json'), viewport, steps, skipped });
        if (output) {
          // Whole or not at all: an editor or `bcs run` reading it meanwhile never sees half a file.
          mkdirSync(dirname(output), { recursive: true });
          writeFileSync(`${output}.tmp`, text);
          renameSync(`${output}.tmp`, output);
        }
        return { text, steps };
      };
      // Called from Playwright's event dispatch: a file that cannot be written is said (once), not thrown there.
      let unwritable = false;
      const rewrite = () => {
        try {
          write();
        } catch (err) {
          if (!unwritable) say(`cannot write ${output}: ${(err as Error).message}`);
          unwritable = true;
        }
      };
      recorder = await recordContext(context, rewrite);
      write();
      await page.goto(url).catch((err: Error) => say(`could not open ${url}: ${err.message.split('\n')[0]} (recording anyway)`));

      say(`recording ${url}${output ? ` into ${output}` : ''}`);
      if (display) say('use the browser window: its toolbar records clicks and typing, and asserts visibility, text, values and snapshots; close the window or press Ctrl-C to finish');
      else if (session.browser_live_view_url) {
        say(`open the live view to drive the browser (its toolbar asserts visibility, text, values and snapshots):`);
        process.stderr.write(`${session.browser_live_view_url}\n`);
        say('press Ctrl-C here to finish');
      }
      await done;
      // A click is held back while the recorder waits for what it causes: let it out before stopping.
      await recorder.stop();
      const { text, steps } = write();
      if (output) say(`wrote ${steps.length} steps to ${output}; run it with: bcs run ${o.output}`);
      else process.stdout.write(text);
    } catch (err) {
      say(err instanceof ApiError ? `could not get a browser: ${err.message}` : (err as Error).message);
      code = EXIT.infrastructure;
    }
    // The browser goes before the process does (finish exits).
    await browser?.close().catch(() => {});
    if (session) await target.client.request('DELETE', `/browsers/${session.session_id}`).catch(() => {});
    await target.close();
    finish(code);
  });
}

/** Resolves on Ctrl-C (or SIGTERM), when the browser goes away, or when its last page is closed. */
function finished(browser: Browser, context: BrowserContext): Promise<void> {
  return new Promise((done) => {
    const end = () => {
      process.off('SIGINT', end);
      process.off('SIGTERM', end);
      done();
    };
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
    browser.once('disconnected', end);
    const watch = (p: Page) => p.once('close', () => context.pages().length === 0 && end());
    context.pages().forEach(watch);
    context.on('page', watch);
  });
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function parseViewport(raw: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(raw);
  if (!m) throw new UsageError(`--viewport '${raw}': expected WIDTHxHEIGHT, e.g. 1280x800`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/** This machine's display, for a headful browser the user sees; without one the live view is the screen. */
function hostDisplay(): { display: string; xauthority?: string } | undefined {
  const display = process.env.DISPLAY;
  if (!display) return undefined;
  const home = join(homedir(), '.Xauthority');
  const xauthority = process.env.XAUTHORITY || (existsSync(home) ? home : undefined);
  return { display, ...(xauthority ? { xauthority } : {}) };
}

// A scenario's `context:` → a Playwright browser context in the session's browser, made with Playwright's
// own options and device registry.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { ContextOptions } from '../../src/scenario/plan.js';
import { StepFailure } from './failures.js';
import { playwrightCore } from './playwright-lib.js';

/**
 * `base` comes first, so the scenario's own options override it. Without a `viewport` or a device the
 * page gets the browser's window, as it does with no `context:` at all: a context about the locale must
 * not shrink a browser made 1920 wide to Playwright's default 1280×720.
 */
export async function newContext(browser: Browser, o: ContextOptions, base: BrowserContextOptions = {}): Promise<BrowserContext> {
  const options: BrowserContextOptions = { viewport: null, ...base, ...(o.device ? await device(o.device) : {}) };
  if (o.viewport) options.viewport = { width: o.viewport.width, height: o.viewport.height };
  if (o.locale) options.locale = o.locale;
  if (o.timezone) options.timezoneId = o.timezone;
  if (o.geolocation) options.geolocation = o.geolocation;
  if (o.permissions) options.permissions = o.permissions;
  if (o.color_scheme) options.colorScheme = o.color_scheme;
  if (o.reduced_motion) options.reducedMotion = o.reduced_motion;
  if (o.offline !== undefined) options.offline = o.offline;
  if (o.extra_headers) options.extraHTTPHeaders = o.extra_headers;
  if (o.user_agent) options.userAgent = o.user_agent;
  if (o.javascript_enabled !== undefined) options.javaScriptEnabled = o.javascript_enabled;
  if (o.storage_state) options.storageState = o.storage_state;
  try {
    return await browser.newContext(options);
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    throw new StepFailure('step', `the browser context could not be made with these options: ${message}`);
  }
}

/**
 * Where a scenario's steps run in a session's browser: a new context made with its `context:` options, else
 * the session's own first context and page.
 */
export async function scenarioPage(browser: Browser, o: ContextOptions | undefined): Promise<{ context: BrowserContext; page: Page }> {
  const context = o ? await newContext(browser, o) : (browser.contexts()[0] ?? (await browser.newContext()));
  return { context, page: context.pages()[0] ?? (await context.newPage()) };
}

/** A device from Playwright's registry; the browser it was described for does not matter here. */
async function device(name: string): Promise<BrowserContextOptions> {
  const { devices } = playwrightCore();
  const found = devices[name];
  if (!found) {
    const near = Object.keys(devices).filter((d) => d.toLowerCase().includes(name.toLowerCase().split(' ')[0]!)).slice(0, 5);
    throw new StepFailure('step', `unknown device '${name}'${near.length ? `; did you mean ${near.map((d) => `'${d}'`).join(', ')}?` : ''} (Playwright's registry has ${Object.keys(devices).length})`);
  }
  const { defaultBrowserType: _browser, ...options } = found;
  return options;
}

let names: readonly string[] | undefined;

/**
 * The names a `context.device` may take, for checking scenarios before they run. Loaded on the first ask
 * (playwright-core takes a good half second to load): only scenarios that name a device pay for it.
 */
export function deviceNames(): readonly string[] {
  names ??= Object.keys(playwrightCore().devices);
  return names;
}

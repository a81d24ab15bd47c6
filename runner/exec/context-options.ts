// A scenario's `context:` → a Playwright browser context in the session's browser, made with Playwright's
// own options and device registry.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { ContextOptions } from '../../src/scenario/plan.js';
import { StepFailure } from './failures.js';
import { playwrightCore } from './playwright-lib.js';

/** Where `record_har` writes, in the scenario's artifact folder. */
export const HAR_FILE = 'network.har';

/**
 * `base` comes first, so the scenario's own options override it. Without a `viewport` or a device the
 * page gets the browser's window, as it does with no `context:` at all: a context about the locale must
 * not shrink a browser made 1920 wide to Playwright's default 1280×720. `harFile` is where a
 * `record_har` context writes its HAR when it is closed.
 */
export async function newContext(browser: Browser, o: ContextOptions, base: BrowserContextOptions = {}, harFile?: string): Promise<BrowserContext> {
  const options: BrowserContextOptions = { viewport: null, ...base, ...(o.device ? await device(o.device) : {}), ...playwrightOptions(o) };
  if (o.record_har) {
    if (!harFile) throw new StepFailure('step', 'record_har needs a context of the scenario\'s own (this browser was prepared ahead of it)');
    const har = o.record_har === true ? {} : o.record_har;
    options.recordHar = {
      path: harFile,
      ...(har.content ? { content: har.content } : {}),
      ...(har.mode ? { mode: har.mode } : {}),
      ...(har.url_filter ? { urlFilter: typeof har.url_filter === 'string' ? har.url_filter : new RegExp(har.url_filter.matches) } : {}),
    };
  }
  try {
    return await browser.newContext(options);
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    throw new StepFailure('step', `the browser context could not be made with these options: ${message}`);
  }
}

/** The scenario's names → Playwright's, for the options that are only renamed. */
function playwrightOptions(o: ContextOptions): BrowserContextOptions {
  const options: BrowserContextOptions = {};
  if (o.viewport) options.viewport = { width: o.viewport.width, height: o.viewport.height };
  if (o.screen) options.screen = { width: o.screen.width, height: o.screen.height };
  if (o.locale) options.locale = o.locale;
  if (o.timezone) options.timezoneId = o.timezone;
  if (o.geolocation) options.geolocation = o.geolocation;
  if (o.permissions) options.permissions = o.permissions;
  if (o.color_scheme) options.colorScheme = o.color_scheme;
  if (o.reduced_motion) options.reducedMotion = o.reduced_motion;
  if (o.forced_colors) options.forcedColors = o.forced_colors;
  if (o.contrast) options.contrast = o.contrast;
  if (o.offline !== undefined) options.offline = o.offline;
  if (o.extra_headers) options.extraHTTPHeaders = o.extra_headers;
  if (o.user_agent) options.userAgent = o.user_agent;
  if (o.javascript_enabled !== undefined) options.javaScriptEnabled = o.javascript_enabled;
  if (o.storage_state) options.storageState = o.storage_state;
  if (o.http_credentials) options.httpCredentials = { ...o.http_credentials };
  if (o.device_scale_factor !== undefined) options.deviceScaleFactor = o.device_scale_factor;
  if (o.is_mobile !== undefined) options.isMobile = o.is_mobile;
  if (o.has_touch !== undefined) options.hasTouch = o.has_touch;
  if (o.bypass_csp !== undefined) options.bypassCSP = o.bypass_csp;
  if (o.ignore_https_errors !== undefined) options.ignoreHTTPSErrors = o.ignore_https_errors;
  if (o.service_workers) options.serviceWorkers = o.service_workers;
  if (o.accept_downloads !== undefined) options.acceptDownloads = o.accept_downloads;
  if (o.strict_selectors !== undefined) options.strictSelectors = o.strict_selectors;
  return options;
}

/**
 * Where a scenario's steps run in a session's browser: a new context made with its `context:` options, else
 * the session's own first context and page.
 */
export async function scenarioPage(browser: Browser, o: ContextOptions | undefined, harFile?: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = o ? await newContext(browser, o, {}, harFile) : (browser.contexts()[0] ?? (await browser.newContext()));
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

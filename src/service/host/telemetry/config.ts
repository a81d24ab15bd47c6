// Which telemetry categories a session captures, resolved from the `telemetry` field of browser create and
// PATCH as the hosted SDK documents it: operational categories are on whenever capture is, CDP categories
// are opt-in, PATCH merges unless it says `enabled: true` (a fresh default set) or `enabled: false` (stop).
import type { BrowserTelemetryConfig, BrowserTelemetryRequest, TelemetryCategory, TelemetryCategoryFlags } from '../../../api/types.js';
import { invalidField } from '../errors.js';

export const CATEGORIES: readonly TelemetryCategory[] = [
  'console', 'network', 'page', 'interaction', 'control', 'connection', 'system', 'captcha', 'screenshot', 'monitor',
];
export type ConfigurableCategory = Exclude<TelemetryCategory, 'monitor'>;
export const CONFIGURABLE: readonly ConfigurableCategory[] = [
  'console', 'network', 'page', 'interaction', 'control', 'connection', 'system', 'captcha', 'screenshot',
];
export const OPERATIONAL: readonly ConfigurableCategory[] = ['control', 'connection', 'system', 'captcha'];
export const CDP_CATEGORIES: readonly ConfigurableCategory[] = ['console', 'network', 'page', 'interaction'];

/** null: capture is off. */
export type CategorySet = ReadonlySet<ConfigurableCategory> | null;

function flagsGiven(req: BrowserTelemetryRequest): boolean {
  return !!req.browser && Object.keys(req.browser).length > 0;
}

function refuseDisabledWithFlags(req: BrowserTelemetryRequest, field: string): void {
  if (req.enabled === false && flagsGiven(req)) {
    throw invalidField(`${field}.enabled`, 'enabled=false cannot be combined with browser category settings');
  }
}

/** Layers flags onto a base set; a category named without `enabled` counts as on, as the in-VM server reads it. */
function layer(base: Iterable<ConfigurableCategory>, flags: TelemetryCategoryFlags | undefined): CategorySet {
  const set = new Set(base);
  for (const [name, flag] of Object.entries(flags ?? {}) as [ConfigurableCategory, { enabled?: boolean } | undefined][]) {
    if (flag?.enabled === false) set.delete(name);
    else set.add(name);
  }
  return set.size ? set : null;
}

/** The categories a new session captures; `field` names the request field in errors. */
export function resolveCreate(req: BrowserTelemetryRequest | null | undefined, field: string): CategorySet {
  if (!req) return null;
  refuseDisabledWithFlags(req, field);
  if (req.enabled === false) return null;
  if (req.enabled === undefined && req.browser === undefined) return null;
  return layer(OPERATIONAL, req.browser);
}

/** The categories after a PATCH, or 'unchanged'. */
export function resolveUpdate(current: CategorySet, req: BrowserTelemetryRequest | null | undefined, field: string): CategorySet | 'unchanged' {
  if (!req || (req.enabled === undefined && !flagsGiven(req))) return 'unchanged';
  refuseDisabledWithFlags(req, field);
  if (req.enabled === false) return null;
  if (req.enabled === true) return layer(OPERATIONAL, req.browser);
  return layer(current ?? OPERATIONAL, req.browser);
}

/** Whether events of `category` are kept: `monitor` rides along with any CDP category. */
export function captures(set: CategorySet, category: TelemetryCategory): boolean {
  if (!set) return false;
  if (category === 'monitor') return CDP_CATEGORIES.some((c) => set.has(c));
  return set.has(category);
}

export function wantsCdp(set: CategorySet): boolean {
  return !!set && CDP_CATEGORIES.some((c) => set.has(c));
}

/** The session object's `telemetry.browser`: every configurable category with its flag. */
export function presentCategories(set: CategorySet): BrowserTelemetryConfig['browser'] {
  return Object.fromEntries(CONFIGURABLE.map((c) => [c, { enabled: !!set?.has(c) }]));
}

export function parseCategories(stored: string[] | null): CategorySet {
  if (!stored) return null;
  const set = new Set(stored.filter((c): c is ConfigurableCategory => (CONFIGURABLE as readonly string[]).includes(c)));
  return set.size ? set : null;
}

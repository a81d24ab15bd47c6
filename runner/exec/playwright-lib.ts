// playwright-core and Playwright Test's `expect`, loaded on first use with require: imported from ES
// modules, Node first scans a CommonJS package's exports, and for playwright-core (its exports re-exported
// from a megabyte bundle) that scan took ~180 ms of the ~520 its load cost a run's start.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function playwrightCore(): typeof import('playwright-core') {
  return require('playwright-core') as typeof import('playwright-core');
}

export function playwrightTest(): typeof import('@playwright/test') {
  return require('@playwright/test') as typeof import('@playwright/test');
}

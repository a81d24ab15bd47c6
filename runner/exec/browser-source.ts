// What the executor asks of whoever prepares browsers ahead of scenarios (suite/browser-supply.ts): a
// browser, context and page for a plan, or nothing (the scenario's own create step then makes one).
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Plan } from '../../src/scenario/plan.js';

export interface SessionInfo {
  session_id: string;
  cdp_ws_url: string;
  [field: string]: unknown;
}

export interface BrowserLease {
  /** The POST /browsers answer, as the scenario's `session` variable. */
  session: SessionInfo;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The x-request-id of the POST /browsers that created the session. */
  request_id?: string;
  /** How it was prepared, for the create step's output. */
  how: { mode: 'own' | 'shared'; ahead: boolean; waited_ms: number };
  /**
   * A shared session's context is closed without waiting (after a failure the session is retired once its
   * other contexts are done, as Playwright Test replaces a worker's browser). An own session is the
   * scenario's from the moment it is taken: its own delete step deletes it, as if it had created it.
   * `kept` (--keep-on-failure): the service keeps the session; its context stays open, and the session is
   * retired without being deleted.
   */
  release(failed: boolean, opts?: { kept?: boolean }): void;
}

/** What the executor asks for a scenario's browser; undefined means: create it yourself. */
export interface BrowserSource {
  take(plan: Plan): Promise<BrowserLease | undefined>;
}

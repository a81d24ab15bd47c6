// The Browser Cloud API calls behind a plan's `acquire_browser` and `release_browser`: one definition, so
// the runner sends exactly these and `bcs plan` shows exactly these.
import type { AcquireBrowser, ApiCall, ReleaseBrowser } from './plan.js';

/** The create or acquire request; its answer is the session (`save` is the op's business, not the call's). */
export function acquireCall(op: AcquireBrowser): ApiCall {
  if ('pool' in op) return { method: 'POST', path: `${poolPath(op.pool)}/acquire`, body: op.body };
  return { method: 'POST', path: '/browsers', body: op.body };
}

/** What a lease that found no free browser (the service's 204) fails with. */
export function noFreeBrowser(op: Extract<AcquireBrowser, { pool: string }>): string {
  return `no browser in pool '${op.pool}' became free within ${op.acquire_timeout_ms} ms`;
}

/** The delete or release request for the session `sessionId`; after a failure a pool replaces the browser rather than reuse it. */
export function releaseCall(op: ReleaseBrowser, sessionId: string, failed: boolean): ApiCall {
  if ('pool' in op) return { method: 'POST', path: `${poolPath(op.pool)}/release`, body: { session_id: sessionId, reuse: !failed } };
  return { method: 'DELETE', path: `/browsers/${sessionId}` };
}

function poolPath(pool: string): string {
  return `/browser_pools/${encodeURIComponent(pool)}`;
}

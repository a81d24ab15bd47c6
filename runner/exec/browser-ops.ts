// The scenario's browser: `acquire_browser` creates it (or takes the one the suite prepared from the same
// body, or leases one from a pool) and saves it as `session`; `release_browser` gives it back (deletes it,
// hands a prepared one back to the suite, releases a lease to its pool, or leaves a kept one alone). The
// requests are browser-calls.ts's, the same ones `bcs plan` shows.
import { acquireCall, noFreeBrowser, releaseCall } from '../../src/scenario/browser-calls.js';
import type { AcquireBrowser, PlanStep, ReleaseBrowser } from '../../src/scenario/plan.js';
import { runApiCall, type ApiOpContext } from './api-ops.js';
import { StepFailure } from './failures.js';
import { keptRelease } from './keep-browser.js';
import { withLocalServers } from './local-servers.js';
import type { RunContext } from './run-context.js';

/** What the step collects (operations.ts's StepWork). */
type StepWork = ApiOpContext['work'];

export async function acquireBrowser(op: AcquireBrowser, ctx: RunContext, step: PlanStep, work: StepWork, signal: AbortSignal): Promise<void> {
  const { state, deps } = ctx;
  if (!('pool' in op) && (await takePrepared(ctx, work))) return;
  const call = acquireCall(op);
  // Loopback URLs in the body (a start page on `serve`) are rewritten to where the browser can reach them.
  if (!('pool' in op) && deps.localServers) call.body = withLocalServers(call.body, deps.localServers.urls, state.scope) as typeof call.body;
  const session = await runApiCall(call, apiContext(ctx, step, work, signal));
  if (session === undefined && 'pool' in op) throw new StepFailure('infrastructure', noFreeBrowser(op));
  state.scope[op.save] = session as RunContext['state']['scope']['session'];
}

export async function releaseBrowser(op: ReleaseBrowser, ctx: RunContext, step: PlanStep, work: StepWork, signal: AbortSignal): Promise<void> {
  const { state } = ctx;
  const session = state.scope.session;
  // The step is skipped when no browser was acquired (run-step.ts); a scenario may also have ended it itself.
  if (!session) return;
  if (!('pool' in op)) {
    if (keptRelease(ctx, session.session_id, work)) return;
    if (state.lease?.session.session_id === session.session_id) {
      const shared = state.lease.how.mode === 'shared';
      // A shared session gives back its context; an own session is the scenario's, deleted below as if it had created it.
      if (shared) state.lease.release(state.failed);
      state.lease = undefined;
      if (shared) return;
    }
  }
  await runApiCall(releaseCall(op, session.session_id, state.failed), apiContext(ctx, step, work, signal));
}

/** A browser the suite prepared for this plan, taken instead of creating one; false when there is none. */
async function takePrepared(ctx: RunContext, work: StepWork): Promise<boolean> {
  const { state, deps } = ctx;
  if (!deps.browsers || state.lease) return false;
  const lease = await deps.browsers.take(ctx.plan);
  if (!lease) return false;
  state.lease = lease;
  state.scope.session = lease.session;
  if (lease.request_id) work.requestIds.push(lease.request_id);
  work.output = { session_id: lease.session.session_id, ...lease.how };
  return true;
}

function apiContext(ctx: RunContext, step: PlanStep, work: StepWork, signal: AbortSignal): ApiOpContext {
  const { state, deps } = ctx;
  return { client: deps.client, scope: state.scope, step, signal, work, gaps: ctx.gaps, artifactDir: ctx.artifactDir, outputRoot: deps.outputDir };
}

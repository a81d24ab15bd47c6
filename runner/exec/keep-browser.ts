// `--keep-on-failure`: a scenario that failed on its last attempt leaves its browser at the failing step for
// someone to look at. Before teardown the service is asked to keep the session (POST /browsers/{id}/keep, with
// the failing step and message), while Playwright is still connected: the service then holds the browser's
// contexts when the runner disconnects. Teardown goes on (the recording is saved, telemetry read), but the
// kept browser is not deleted, and a shared session is not handed to later scenarios.
import { ApiError } from '../../src/api/errors.js';
import type { KeptSession, StepResult } from '../reporters/results.js';
import type { KeepDeps, RunContext } from './run-context.js';

/** The service's bounds on the reason's texts (src/api/schemas/browser-keep.ts): longer ones are cut. */
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text).replace(/\u0000/g, '') || '-';
const NOT_SERVED = [404, 405, 501];

/** Keeps the scenario's browser after `failed` (the step it failed at); says why not where it cannot. */
export async function keepFailedBrowser(ctx: RunContext, keep: KeepDeps, failed: StepResult): Promise<void> {
  const { state, deps, plan } = ctx;
  const session = state.scope.session as { session_id: string; pool?: unknown } | undefined;
  if (!session || ctx.gaps.lacks('keep_on_failure')) return;
  const scenario = plan.scenario.name;
  if (session.pool) {
    keep.say(`not keeping the browser of '${scenario}': it was leased from a pool, and goes back to it`);
    return;
  }
  const id = encodeURIComponent(session.session_id);
  const step = ctx.mask(failed.name);
  const reason = {
    ...(keep.runId ? { run_id: cut(keep.runId, 255) } : {}),
    scenario: cut(scenario, 1024),
    step: cut(step, 4096),
    ...(failed.error ? { message: cut(ctx.mask(failed.error.message), 16_384) } : {}),
  };
  try {
    const { data } = await deps.client.request<{ browser_live_view_url?: string; kept?: { until: string } }>('POST', `/browsers/${id}/keep`, {
      body: { seconds: keep.seconds, reason },
    });
    const until = data.kept?.until ?? new Date(Date.now() + keep.seconds * 1000).toISOString();
    const liveView = data.browser_live_view_url ?? state.scope.session?.browser_live_view_url;
    state.kept = { session_id: session.session_id, ...(liveView ? { live_view_url: liveView } : {}), until };
    keep.say(
      `kept the browser of '${scenario}' at step '${step}' until ${until}: ${liveView ?? `session ${session.session_id}`} ` +
        `(end it sooner with DELETE /browsers/${session.session_id})`,
    );
  } catch (err) {
    if (err instanceof ApiError && NOT_SERVED.includes(err.status) && (await stillThere(ctx, id))) {
      // Said once at the run's end, as every other extension the target lacks; no later scenario asks again.
      ctx.gaps.lack('keep_on_failure');
      return;
    }
    keep.say(`could not keep the browser of '${scenario}': ${err instanceof ApiError ? err.serverMessage : (err as Error).message}`);
  }
}

/** Whether the session answers: a 404 of the keep was then the route's absence, not the browser's. */
async function stillThere(ctx: RunContext, id: string): Promise<boolean> {
  try {
    await ctx.deps.client.request('GET', `/browsers/${id}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The teardown's delete of the kept browser is not sent: true when `sessionId` is it. A shared session's
 * context is left open, its session retired from the supply (browser-supply.ts) and never deleted by it.
 */
export function keptRelease(ctx: RunContext, sessionId: string, work: { output?: unknown }): boolean {
  const { state } = ctx;
  const kept: KeptSession | undefined = state.kept;
  if (!kept || kept.session_id !== sessionId) return false;
  if (state.lease?.session.session_id === kept.session_id) {
    // An own session was disconnected by this step already, and is the scenario's: nothing to give back.
    if (state.lease.how.mode === 'shared') state.lease.release(true, { kept: true });
    state.lease = undefined;
  }
  work.output = { kept: true, until: kept.until };
  return true;
}

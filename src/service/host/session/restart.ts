// Restarting Chromium in a running session, as the hosted service does to load extensions or a profile into
// a browser. The session keeps everything but the Chromium process: its id and record, its view (the same
// user data), network namespace, egress proxy, screen, processes, recordings and its CDP address (clients
// are dropped and reconnect to the same URL). The old Chromium is closed cleanly first, so what it kept in
// memory (cookies) is on disk when the new one starts from the same user data.
import { closeCleanly, relaunchBrowser, type LaunchContext, type LaunchEnv, type LaunchSpec, type WarmBrowser, type LaunchedChromium } from '../browser/index.js';
import { DomainError, conflict, notFound, unavailable } from '../errors.js';
import type { LiveSession, Logger, SessionRestartHook } from './types.js';
import { callAll } from './hook-calls.js';

export interface RestartChange {
  /** The new Chromium's launch spec, from the current one's. */
  spec(current: LaunchSpec): LaunchSpec;
  /** Puts what the new Chromium needs into the view once the old one is gone (launch-context.ts). */
  prepare?(ctx: LaunchContext): Promise<void>;
  /** Why, for the session's log. */
  reason: string;
  /** Takes back what the caller recorded for the change, when it cannot be made (before the session could end). */
  undo?(): Promise<void>;
}

export interface RestartDeps {
  env: LaunchEnv;
  log: Logger;
  hooks(): SessionRestartHook[];
  /** The session's browser as last launched; none once the session is gone. */
  current(sessionId: string): WarmBrowser | undefined;
  /** The new browser becomes the session's: its record's pid, the exit watch, what closes at the end. */
  adopt(session: LiveSession, warm: WarmBrowser): Promise<void>;
  dropClients(sessionId: string): void;
  /** Ends a session whose Chromium could not be started again at all. */
  end(sessionId: string, detail: string): void;
}

/** Chromium processes a restart replaced: their exit is no crash of the session. */
const retired = new WeakSet<LaunchedChromium>();

/** Whether `chromium` exiting is expected: its session is ending, or a restart replaced it. */
export function expectedExit(session: LiveSession, chromium: LaunchedChromium): boolean {
  return !!session.ending || retired.has(chromium);
}

/**
 * Restarts `session`'s Chromium with `change`, one restart at a time. Meanwhile `ready` is pending, so CDP
 * clients, input and Playwright wait for the new browser rather than reach for the old one.
 */
export async function restartSession(deps: RestartDeps, id: string, session: LiveSession | undefined, change: RestartChange): Promise<void> {
  if (!session || session.ending) throw notFound('browser', id);
  if (session.parked) throw new DomainError('not_found', 'not_found', `browser '${id}' is idle in its pool; acquire it first`);
  if (session.restarting) throw conflict(`browser '${id}' is restarting already; try again once it is back`);
  const before = session.ready;
  let settle!: () => void;
  session.ready = new Promise<void>((resolve) => (settle = resolve));
  const work = (async () => {
    // The service's own set-up of the current browser (start hooks) finishes first.
    await before;
    if (session.ending) throw notFound('browser', id);
    await restartChromium(deps, session, change);
  })();
  session.restarting = work.catch(() => undefined);
  try {
    await work;
    await deps.current(id)?.downloads;
  } finally {
    session.restarting = undefined;
    session.lastActivity = Date.now();
    settle();
  }
}

/**
 * Replaces the session's Chromium with one launched with the changed spec. When that launch fails, the
 * browser is launched again as it was and the failure thrown; when even that fails, the session ends.
 */
async function restartChromium(deps: RestartDeps, session: LiveSession, change: RestartChange): Promise<void> {
  const old = deps.current(session.id);
  if (!old) throw notFound('browser', session.id);
  retired.add(old.chromium);
  // Their connections end with the old Chromium anyway; dropped first, no command of theirs is cut in half.
  deps.dropClients(session.id);
  (await old.downloads)?.close();
  await closeCleanly(old.chromium);
  await old.chromium.kill();
  let failure: unknown;
  let next: WarmBrowser;
  try {
    next = await relaunchBrowser(deps.env, old, change.spec(old.spec), change.prepare);
  } catch (err) {
    failure = err;
    await change.undo?.().catch((undoErr: unknown) =>
      deps.log.warn({ session_id: session.id, err: (undoErr as Error).message }, 'could not take back what the restart recorded'),
    );
    deps.log.warn({ session_id: session.id, err: (err as Error).message }, 'could not restart the browser with the change; starting it as it was');
    try {
      next = await relaunchBrowser(deps.env, old, old.spec);
    } catch (again) {
      const detail = `chromium could not be started again (${change.reason}): ${(again as Error).message}`;
      deps.end(session.id, detail);
      throw unavailable('browser_restart_failed', `${detail}; the session ended`);
    }
  }
  await deps.adopt(session, next);
  await callAll(deps.hooks(), (hook) => hook(session, change.reason), deps.log, { session_id: session.id }, 'a session restart hook');
  if (failure === undefined) return;
  if (failure instanceof DomainError) throw failure;
  throw unavailable('browser_restart_failed', `could not restart Chromium (${change.reason}): ${(failure as Error).message}; it runs as before`);
}

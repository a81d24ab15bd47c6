// Ending a live session: why goes into its record, its clients and the end listeners are told, what the
// service runs for it is cleaned up, its browser is stopped, and only then is it gone and its folder removed.
import { join } from 'node:path';
import type { BrowserEndReason } from '../../../api/types.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import { removeDir } from '../browser/index.js';
import type { SessionBrowsers } from './session-browsers.js';
import type { SessionCounts } from './session-counts.js';
import type { LiveSession, Logger, SessionEndListener } from './types.js';

export interface SessionEndDeps {
  repo: BrowsersRepo;
  now: () => Date;
  log: Logger;
  sessionsDir: string;
  counts: SessionCounts;
  browsers: SessionBrowsers;
  listeners(): SessionEndListener[];
  /** The stopped hooks, once the session's browser is gone. */
  stopped(row: BrowserRow): Promise<void>;
  /** The session is no longer live, and gives its place on the host back. */
  gone(id: string): void;
  /** Takes the folder's removal, so a shutdown waits for it. */
  track(work: Promise<unknown>): void;
}

/** Ends `session`; the caller keeps the promise as `session.ending`, so that this runs once. */
export async function endSession(deps: SessionEndDeps, session: LiveSession, reason: BrowserEndReason, detail: string | null): Promise<void> {
  const { id } = session;
  // A restart under way finishes first, so that the Chromium it starts is the one stopped here. Only
  // then: without one, the count and the end listeners are told synchronously, as they expect; the
  // record's write is under way meanwhile and awaited before anything reads it back.
  if (session.restarting) await session.restarting;
  const recorded = deps.repo
    .end(id, reason, detail, deps.now())
    .catch((err: unknown) => deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not record the end of a session'));
  if (session.poolId === null) deps.counts.countOnDemand(session.projectId, -1);
  for (const socket of session.connections) socket.destroy();
  for (const listener of deps.listeners()) {
    try {
      listener(session, reason);
    } catch (err) {
      deps.log.warn({ session_id: id, err: (err as Error).message }, 'a session end listener failed');
    }
  }
  await Promise.all(
    session.cleanups.map(async (cleanup) => {
      try {
        await cleanup();
      } catch (err) {
        deps.log.warn({ session_id: id, err: (err as Error).message }, 'session cleanup step failed');
      }
    }),
  );
  await deps.browsers.stop(session);
  await session.screen?.stop();
  await recorded;
  const ended = await deps.repo.get(id).catch((err: unknown) => {
    deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not read the record of an ended session');
    return undefined;
  });
  if (ended) await deps.stopped(ended);
  deps.gone(id);
  deps.log.info({ session_id: id, reason, detail }, 'browser session ended');
  deps.track(removeDir(join(deps.sessionsDir, id)));
}

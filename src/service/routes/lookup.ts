// Finds the session a per-browser route is about, within the caller's project.
import type { FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import type { LiveSession, SessionManager } from '../host/session/index.js';
import type { BrowserRow, BrowsersRepo } from '../store/browsers-repo.js';

/** By id (deleted ones too when asked), else by the name of an active session. 404 otherwise. */
export async function findSessionRow(repo: BrowsersRepo, req: FastifyRequest, idOrName: string, includeDeleted = false): Promise<BrowserRow> {
  const projectId = req.auth.projectId;
  const byId = await repo.get(idOrName);
  if (byId && byId.project_id === projectId && (includeDeleted || !byId.deleted_at)) return byId;
  const byName = await repo.getActiveByName(projectId, idOrName);
  if (byName) return byName;
  throw notFound('browser', idOrName);
}

/** The running session behind `id` (an id or an active name); counts the call as activity. */
export async function liveSession(repo: BrowsersRepo, sessions: SessionManager, req: FastifyRequest, id: string): Promise<LiveSession> {
  const row = await findSessionRow(repo, req, id);
  const live = sessions.get(row.id);
  if (!live || live.ending) throw notFound('browser', id);
  sessions.touch(row.id);
  return live;
}

/** Path parameters of every per-browser route. */
export { idParams as sessionParams } from './params.js';

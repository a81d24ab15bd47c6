// How every resource is addressed: by id (named ones else by name), and only within the caller's project,
// so a resource of another project is exactly as absent as one that does not exist.
import { notFound } from './errors.js';

export interface NamedRepo<R> {
  get(id: string): R | undefined;
  getByName(projectId: string | null, name: string): R | undefined;
}

export function findInProject<R extends { project_id: string | null }>(repo: NamedRepo<R>, projectId: string | null, idOrName: string, what: string): R {
  const byId = repo.get(idOrName);
  if (byId && (byId.project_id ?? null) === projectId) return byId;
  const byName = repo.getByName(projectId, idOrName);
  if (byName) return byName;
  throw notFound(what, idOrName);
}

/** A resource addressed by id only, within the project. */
export function findByIdInProject<R extends { project_id: string | null }>(repo: { get(id: string): R | undefined }, projectId: string | null, id: string, what: string): R {
  const row = repo.get(id);
  if (!row || (row.project_id ?? null) !== projectId) throw notFound(what, id);
  return row;
}

/** What an async repository offers for addressing its rows (the store's repositories, as they move to async). */
export interface AsyncNamedRepo<R> {
  get(id: string): Promise<R | undefined>;
  getByName(projectId: string | null, name: string): Promise<R | undefined>;
}

/** findInProject over an async repository. */
export async function lookUpInProject<R extends { project_id: string | null }>(repo: AsyncNamedRepo<R>, projectId: string | null, idOrName: string, what: string): Promise<R> {
  const byId = await repo.get(idOrName);
  if (byId && (byId.project_id ?? null) === projectId) return byId;
  const byName = await repo.getByName(projectId, idOrName);
  if (byName) return byName;
  throw notFound(what, idOrName);
}

/** findByIdInProject over an async repository. */
export async function lookUpByIdInProject<R extends { project_id: string | null }>(repo: { get(id: string): Promise<R | undefined> }, projectId: string | null, id: string, what: string): Promise<R> {
  const row = await repo.get(id);
  if (!row || (row.project_id ?? null) !== projectId) throw notFound(what, id);
  return row;
}

// How every resource is addressed: by id (named ones else by name), and only within the caller's project,
// so a resource of another project is exactly as absent as one that does not exist.
import { notFound } from './errors.js';

/** What a repository offers for addressing its rows. */
export interface NamedRepo<R> {
  get(id: string): Promise<R | undefined>;
  getByName(projectId: string | null, name: string): Promise<R | undefined>;
}

/** By id, else by name, within the project; a resource of another project is not found. */
export async function lookUpInProject<R extends { project_id: string | null }>(repo: NamedRepo<R>, projectId: string | null, idOrName: string, what: string): Promise<R> {
  const byId = await repo.get(idOrName);
  if (byId && (byId.project_id ?? null) === projectId) return byId;
  const byName = await repo.getByName(projectId, idOrName);
  if (byName) return byName;
  throw notFound(what, idOrName);
}

/** A resource addressed by id only, within the project. */
export async function lookUpByIdInProject<R extends { project_id: string | null }>(repo: { get(id: string): Promise<R | undefined> }, projectId: string | null, id: string, what: string): Promise<R> {
  const row = await repo.get(id);
  if (!row || (row.project_id ?? null) !== projectId) throw notFound(what, id);
  return row;
}

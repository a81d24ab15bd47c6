// API keys: stored as SHA-256 hashes with a masked form for display; the plaintext is never kept.
// Deletes are soft (the record stays for audits); expiry is a timestamp checked at authentication.
import type { Db } from './sqlite/open.js';
import { hashKey, maskKey, newId } from '../ids.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  masked_key: string;
  project_id: string | null;
  created_at: string;
  expires_at: string | null;
  deleted_at: string | null;
  /** The key that created this one; null for the bootstrap key (and keys from before version 8). */
  created_by_id: string | null;
  created_by_name: string | null;
}

/** A record as lists show it, with the name of its project. */
export interface ApiKeyView extends ApiKeyRecord {
  project_name: string | null;
}

export interface Creator {
  id: string;
  name: string;
}

export interface ApiKeyListQuery {
  status: 'active' | 'deleted' | 'all';
  name?: string;
  query?: string;
  sortBy: 'created_at' | 'name' | 'expires_at';
  sortDirection: 'asc' | 'desc';
  offset: number;
  limit: number;
}

const COLUMNS = 'k.id, k.name, k.masked_key, k.project_id, k.created_at, k.expires_at, k.deleted_at, k.created_by_id, k.created_by_name';
const VIEW = `SELECT ${COLUMNS}, p.name AS project_name FROM api_keys k LEFT JOIN projects p ON p.id = k.project_id`;

export class ApiKeysRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      byHash: db.prepare<[string], ApiKeyRecord>(`SELECT ${COLUMNS} FROM api_keys k WHERE key_hash = ?`),
      byId: db.prepare<[string], ApiKeyView>(`${VIEW} WHERE k.id = ?`),
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, key_hash, masked_key, project_id, created_at, expires_at, created_by_id, created_by_name)
         VALUES (@id, @name, @key_hash, @masked_key, @project_id, @created_at, @expires_at, @created_by_id, @created_by_name)`,
      ),
      rename: db.prepare(`UPDATE api_keys SET name = ? WHERE id = ? AND deleted_at IS NULL`),
      softDelete: db.prepare(`UPDATE api_keys SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`),
      // Never extends a key's life: a rotation grace period only ever brings expiry closer.
      expireBy: db.prepare(
        `UPDATE api_keys SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > @at THEN @at ELSE expires_at END WHERE id = @id`,
      ),
      orgId: db.prepare<[], { org_id: string }>(`SELECT org_id FROM organization WHERE id = 1`),
    };
  }

  /** Stores `key` (hashed). Storing a key that already exists is a no-op that returns the existing record. */
  add(
    key: string,
    opts: { name: string; projectId?: string | null; expiresAt?: string | null; now: Date; createdBy?: Creator | null },
  ): ApiKeyRecord {
    const existing = this.stmts.byHash.get(hashKey(key));
    if (existing) return existing;
    const record: ApiKeyRecord = {
      id: newId(),
      name: opts.name,
      masked_key: maskKey(key),
      project_id: opts.projectId ?? null,
      created_at: opts.now.toISOString(),
      expires_at: opts.expiresAt ?? null,
      deleted_at: null,
      created_by_id: opts.createdBy?.id ?? null,
      created_by_name: opts.createdBy?.name ?? null,
    };
    this.stmts.insert.run({ ...record, key_hash: hashKey(key) });
    return record;
  }

  /** The live key matching `key`, or undefined when unknown, deleted or expired. */
  authenticate(key: string, now: Date): ApiKeyRecord | undefined {
    const record = this.stmts.byHash.get(hashKey(key));
    if (!record || record.deleted_at || isExpired(record, now)) return undefined;
    return record;
  }

  /** By id, deleted keys included. */
  get(id: string): ApiKeyView | undefined {
    return this.stmts.byId.get(id);
  }

  list(q: ApiKeyListQuery): { rows: ApiKeyView[]; hasMore: boolean } {
    const where: string[] = [];
    const params: Record<string, unknown> = { limit: q.limit + 1, offset: q.offset };
    if (q.status === 'active') where.push('k.deleted_at IS NULL');
    if (q.status === 'deleted') where.push('k.deleted_at IS NOT NULL');
    if (q.name !== undefined) {
      where.push('k.name = @name COLLATE NOCASE');
      params.name = q.name;
    }
    if (q.query) {
      // Words match anywhere in the name, creator or project; ids and masked keys only from their start.
      where.push(
        `(instr(lower(k.name), @lower) > 0 OR instr(lower(ifnull(k.created_by_name, '')), @lower) > 0
          OR instr(lower(ifnull(p.name, '')), @lower) > 0
          OR substr(k.id, 1, length(@raw)) = @raw OR substr(k.masked_key, 1, length(@raw)) = @raw)`,
      );
      params.lower = q.query.toLowerCase();
      params.raw = q.query;
    }
    const dir = q.sortDirection === 'desc' ? 'DESC' : 'ASC';
    // Keys that never expire sort as the latest expiry.
    const order =
      q.sortBy === 'expires_at'
        ? `k.expires_at IS NULL ${dir}, k.expires_at ${dir}`
        : q.sortBy === 'name'
          ? `k.name COLLATE NOCASE ${dir}`
          : `k.created_at ${dir}`;
    const sql = `${VIEW} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order}, k.rowid ${dir} LIMIT @limit OFFSET @offset`;
    const rows = this.db.prepare<Record<string, unknown>, ApiKeyView>(sql).all(params);
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Renames a live key; false when there is none with this id. */
  rename(id: string, name: string): boolean {
    return this.stmts.rename.run(name, id).changes > 0;
  }

  /** Soft-deletes a live key; false when there is none with this id. */
  softDelete(id: string, at: Date): boolean {
    return this.stmts.softDelete.run(at.toISOString(), id).changes > 0;
  }

  /** Stores `newKey` as the replacement of `oldId` and makes the old one expire by `graceUntil`, atomically. */
  rotate(oldId: string, newKey: string, opts: { name: string; projectId: string | null; expiresAt: string | null; now: Date; createdBy: Creator; graceUntil: Date }): ApiKeyRecord {
    return this.db.transaction(() => {
      const record = this.add(newKey, opts);
      this.stmts.expireBy.run({ id: oldId, at: opts.graceUntil.toISOString() });
      return record;
    })();
  }

  /** The organisation's stable id (made once by the migration). */
  organizationId(): string {
    return this.stmts.orgId.get()!.org_id;
  }
}

export function isExpired(record: Pick<ApiKeyRecord, 'expires_at'>, now: Date): boolean {
  return record.expires_at !== null && Date.parse(record.expires_at) <= now.getTime();
}

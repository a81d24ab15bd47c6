// API keys: stored as SHA-256 hashes with a masked form for display; the plaintext is never kept.
// Deletes are soft (the record stays for audits); expiry is a timestamp checked at authentication.
import { randomBytes } from 'node:crypto';
import type { Database, Queryable } from './database.js';
import { join, likePattern, raw, sql, type Sql } from './sql.js';
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

export interface AddKeyOptions {
  name: string;
  projectId?: string | null;
  expiresAt?: string | null;
  now: Date;
  createdBy?: Creator | null;
}

const COLUMNS = raw('k.id, k.name, k.masked_key, k.project_id, k.created_at, k.expires_at, k.deleted_at, k.created_by_id, k.created_by_name');
const VIEW = sql`SELECT ${COLUMNS}, p.name AS project_name FROM api_keys k LEFT JOIN projects p ON p.id = k.project_id`;

export interface KeyCacheOptions {
  /**
   * How long a live key, once found, is trusted without asking the store again (0: always ask). Every
   * request authenticates, and the lookup was a quarter of a pool lease's queries. Changes made through this
   * repo (delete, rotate, rename, a project's delete) apply at once; a change made by another process of a
   * cluster is seen within this time.
   */
  cacheMs?: number;
  /** A monotonic clock in ms (tests inject one); expiry itself is always checked against the caller's `now`. */
  monotonic?: () => number;
}

/** What the service keeps found keys for: how late a cluster's other processes may see a key's delete. */
export const KEY_CACHE_MS = 1000;

/** Enough to hold a busy organisation's working set; the oldest found leaves first. */
const CACHED_KEYS = 1000;

export class ApiKeysRepo {
  private readonly cached = new Map<string, { record: ApiKeyRecord; at: number }>();
  private readonly cacheMs: number;
  private readonly monotonic: () => number;

  constructor(
    private readonly db: Database,
    opts: KeyCacheOptions = {},
  ) {
    this.cacheMs = opts.cacheMs ?? 0;
    this.monotonic = opts.monotonic ?? (() => performance.now());
  }

  /** Stores `key` (hashed). Storing a key that already exists is a no-op that returns the existing record. */
  add(key: string, opts: AddKeyOptions): Promise<ApiKeyRecord> {
    return addKey(this.db, key, opts);
  }

  /** The live key matching `key`, or undefined when unknown, deleted or expired. One query: this runs on every request. */
  async authenticate(key: string, now: Date): Promise<ApiKeyRecord | undefined> {
    const keyHash = hashKey(key);
    const hit = this.cached.get(keyHash);
    let record: ApiKeyRecord | undefined;
    if (hit && this.monotonic() - hit.at < this.cacheMs) record = hit.record;
    else {
      record = await byHash(this.db, keyHash);
      this.cached.delete(keyHash);
      // Only live keys: a key made a moment ago on another process must work at once, so misses are not kept.
      if (this.cacheMs > 0 && record && !record.deleted_at) {
        if (this.cached.size >= CACHED_KEYS) this.cached.delete(this.cached.keys().next().value!);
        this.cached.set(keyHash, { record, at: this.monotonic() });
      }
    }
    if (!record || record.deleted_at || isExpired(record, now)) return undefined;
    return record;
  }

  /** Drops what authenticate kept of the keys `which` picks, after a change the store made behind this repo. */
  forget(which: (record: ApiKeyRecord) => boolean): void {
    for (const [keyHash, { record }] of this.cached) if (which(record)) this.cached.delete(keyHash);
  }

  /** By id, deleted keys included. */
  get(id: string): Promise<ApiKeyView | undefined> {
    return this.db.get<ApiKeyView>(sql`${VIEW} WHERE k.id = ${id}`);
  }

  async list(q: ApiKeyListQuery): Promise<{ rows: ApiKeyView[]; hasMore: boolean }> {
    const where: Sql[] = [];
    if (q.status === 'active') where.push(sql`k.deleted_at IS NULL`);
    if (q.status === 'deleted') where.push(sql`k.deleted_at IS NOT NULL`);
    if (q.name !== undefined) where.push(sql`lower(k.name) = lower(${q.name})`);
    if (q.query) {
      // Words match anywhere in the name, creator or project; ids and masked keys only from their start,
      // exactly (substr, not LIKE, which SQLite compares case-insensitively).
      const contains = likePattern(q.query);
      const prefixLength = [...q.query].length;
      where.push(sql`(lower(k.name) LIKE ${contains} ESCAPE '\\'
        OR lower(coalesce(k.created_by_name, '')) LIKE ${contains} ESCAPE '\\'
        OR lower(coalesce(p.name, '')) LIKE ${contains} ESCAPE '\\'
        OR substr(k.id, 1, ${prefixLength}) = ${q.query} OR substr(k.masked_key, 1, ${prefixLength}) = ${q.query})`);
    }
    const dir = raw(q.sortDirection === 'desc' ? 'DESC' : 'ASC');
    // Keys that never expire sort as the latest expiry.
    const order =
      q.sortBy === 'expires_at'
        ? sql`k.expires_at IS NULL ${dir}, k.expires_at ${dir}`
        : q.sortBy === 'name'
          ? sql`lower(k.name) ${dir}`
          : sql`k.created_at ${dir}`;
    // Ties (keys made in the same millisecond) in the order they were stored, so pages stay stable.
    const stored = raw(this.db.dialect === 'postgres' ? 'k.seq' : 'k.rowid');
    const rows = await this.db.all<ApiKeyView>(
      sql`${VIEW} ${where.length ? sql`WHERE ${join(where, ' AND ')}` : raw('')} ORDER BY ${order}, ${stored} ${dir} LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
  }

  /** Renames a live key; false when there is none with this id. */
  async rename(id: string, name: string): Promise<boolean> {
    this.forget((r) => r.id === id);
    return (await this.db.run(sql`UPDATE api_keys SET name = ${name} WHERE id = ${id} AND deleted_at IS NULL`)).changes > 0;
  }

  /** Soft-deletes a live key; false when there is none with this id. */
  async softDelete(id: string, at: Date): Promise<boolean> {
    try {
      return (await this.db.run(sql`UPDATE api_keys SET deleted_at = ${at.toISOString()} WHERE id = ${id} AND deleted_at IS NULL`)).changes > 0;
    } finally {
      // After the write too: a request authenticating meanwhile may have kept the key again.
      this.forget((r) => r.id === id);
    }
  }

  /** Stores `newKey` as the replacement of `oldId` and makes the old one expire by `graceUntil`, atomically. */
  rotate(oldId: string, newKey: string, opts: AddKeyOptions & { graceUntil: Date }): Promise<ApiKeyRecord> {
    const at = opts.graceUntil.toISOString();
    return this.db
      .transaction(async (tx) => {
        const record = await addKey(tx, newKey, opts);
        // Never extends a key's life: a rotation grace period only ever brings expiry closer.
        await tx.run(sql`UPDATE api_keys SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > ${at} THEN ${at} ELSE expires_at END WHERE id = ${oldId}`);
        return record;
      })
      .finally(() => this.forget((r) => r.id === oldId));
  }

  /** The organisation's stable id. */
  async organizationId(): Promise<string> {
    const row = await this.db.get<{ org_id: string }>(sql`SELECT org_id FROM organization WHERE id = 1`);
    if (row) return row.org_id;
    // SQLite's migration made it; PostgreSQL's schema leaves it to the first reader. Replicas starting
    // together each offer one and all keep whichever landed first.
    await this.db.run(sql`INSERT INTO organization (id, org_id) VALUES (1, ${randomBytes(12).toString('hex')}) ON CONFLICT (id) DO NOTHING`);
    return (await this.db.get<{ org_id: string }>(sql`SELECT org_id FROM organization WHERE id = 1`))!.org_id;
  }
}

function byHash(db: Queryable, keyHash: string): Promise<ApiKeyRecord | undefined> {
  return db.get<ApiKeyRecord>(sql`SELECT ${COLUMNS} FROM api_keys k WHERE k.key_hash = ${keyHash}`);
}

/** Insert-if-absent in one statement, so two callers storing the same key cannot both insert it. */
async function addKey(db: Queryable, key: string, opts: AddKeyOptions): Promise<ApiKeyRecord> {
  const keyHash = hashKey(key);
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
  const { changes } = await db.run(sql`INSERT INTO api_keys
      (id, name, key_hash, masked_key, project_id, created_at, expires_at, created_by_id, created_by_name)
    VALUES (${record.id}, ${record.name}, ${keyHash}, ${record.masked_key}, ${record.project_id}, ${record.created_at},
      ${record.expires_at}, ${record.created_by_id}, ${record.created_by_name})
    ON CONFLICT (key_hash) DO NOTHING`);
  return changes > 0 ? record : (await byHash(db, keyHash))!;
}

export function isExpired(record: Pick<ApiKeyRecord, 'expires_at'>, now: Date): boolean {
  return record.expires_at !== null && Date.parse(record.expires_at) <= now.getTime();
}

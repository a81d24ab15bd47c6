// API keys: stored as SHA-256 hashes with a masked form for display; the plaintext is never kept.
import type { Db } from './db.js';
import { hashKey, maskKey, newId } from '../ids.js';

export interface ApiKeyRecord {
  id: string;
  name: string;
  masked_key: string;
  project_id: string | null;
  created_at: string;
  expires_at: string | null;
  deleted_at: string | null;
}

export class ApiKeysRepo {
  private readonly byHash;
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.byHash = db.prepare<[string], ApiKeyRecord>(
      `SELECT id, name, masked_key, project_id, created_at, expires_at, deleted_at FROM api_keys WHERE key_hash = ?`,
    );
    this.insertStmt = db.prepare(
      `INSERT INTO api_keys (id, name, key_hash, masked_key, project_id, created_at, expires_at)
       VALUES (@id, @name, @key_hash, @masked_key, @project_id, @created_at, @expires_at)`,
    );
  }

  /** Stores `key` (hashed). Storing a key that already exists is a no-op that returns the existing record. */
  add(key: string, opts: { name: string; projectId?: string | null; expiresAt?: string | null; now: Date }): ApiKeyRecord {
    const existing = this.byHash.get(hashKey(key));
    if (existing) return existing;
    const record: ApiKeyRecord = {
      id: newId(),
      name: opts.name,
      masked_key: maskKey(key),
      project_id: opts.projectId ?? null,
      created_at: opts.now.toISOString(),
      expires_at: opts.expiresAt ?? null,
      deleted_at: null,
    };
    this.insertStmt.run({ ...record, key_hash: hashKey(key) });
    return record;
  }

  /** The live key matching `key`, or undefined when unknown, deleted or expired. */
  authenticate(key: string, now: Date): ApiKeyRecord | undefined {
    const record = this.byHash.get(hashKey(key));
    if (!record || record.deleted_at) return undefined;
    if (record.expires_at && Date.parse(record.expires_at) <= now.getTime()) return undefined;
    return record;
  }
}

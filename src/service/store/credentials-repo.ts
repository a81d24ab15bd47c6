// Credentials per project and the organisation's credential providers. Secrets arrive sealed
// (secrets-box.ts) and leave sealed: this module never sees a plaintext value, secret or token.
import type { Db } from './sqlite/open.js';
import { unique } from './sqlite/database.js';
import { likePattern } from './sql.js';

export interface CredentialRow {
  id: string;
  project_id: string | null;
  name: string;
  domain: string;
  /** The names of the stored values, kept in the clear so answers can list them without opening anything. */
  value_keys: string[];
  values_sealed: string | null;
  sso_provider: string | null;
  totp_sealed: string | null;
  created_at: string;
  updated_at: string;
}

type StoredCredential = Omit<CredentialRow, 'value_keys'> & { value_keys: string };

export interface CredentialListQuery {
  projectId: string | null;
  domain?: string;
  query?: string;
  offset: number;
  limit: number;
}

const CREDENTIAL_COLUMNS = 'id, project_id, name, domain, value_keys, values_sealed, sso_provider, totp_sealed, created_at, updated_at';

export class CredentialsRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES (@id, @project_id, @name, @domain, @value_keys, @values_sealed,
          @sso_provider, @totp_sealed, @created_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE credentials SET name = @name, value_keys = @value_keys, values_sealed = @values_sealed, sso_provider = @sso_provider,
          totp_sealed = @totp_sealed, updated_at = @updated_at WHERE id = @id`,
      ),
      byId: db.prepare<[string], StoredCredential>(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE id = ?`),
      byName: db.prepare<[string, string], StoredCredential>(`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE ifnull(project_id, '') = ? AND name = ?`),
      remove: db.prepare(`DELETE FROM credentials WHERE id = ?`),
    };
  }

  /** Throws UniqueViolation when the name is taken in the project. */
  insert(row: CredentialRow): void {
    unique(() => this.stmts.insert.run(toStored(row)));
  }

  /** Throws UniqueViolation when a new name is taken in the project. */
  update(row: CredentialRow): void {
    unique(() => this.stmts.update.run(toStored(row)));
  }

  get(id: string): CredentialRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStored(row);
  }

  getByName(projectId: string | null, name: string): CredentialRow | undefined {
    const row = this.stmts.byName.get(projectId ?? '', name);
    return row && fromStored(row);
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  /** One page of a project's credentials, oldest first. */
  list(q: CredentialListQuery): { rows: CredentialRow[]; hasMore: boolean } {
    const where = [`ifnull(project_id, '') = @project`];
    const params: Record<string, unknown> = { project: q.projectId ?? '', limit: q.limit + 1, offset: q.offset };
    if (q.domain !== undefined) {
      where.push('domain = @domain COLLATE NOCASE');
      params.domain = q.domain;
    }
    if (q.query) {
      where.push(`(id = @id OR lower(name) LIKE @query ESCAPE '\\' OR lower(domain) LIKE @query ESCAPE '\\')`);
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, StoredCredential>(
        `SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE ${where.join(' AND ')} ORDER BY seq LIMIT @limit OFFSET @offset`,
      )
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }
}

function toStored(row: CredentialRow): StoredCredential {
  return { ...row, value_keys: JSON.stringify(row.value_keys) };
}

function fromStored(row: StoredCredential): CredentialRow {
  return { ...row, value_keys: JSON.parse(row.value_keys) as string[] };
}

export interface CredentialProviderRow {
  id: string;
  name: string;
  provider_type: 'onepassword';
  token_sealed: string;
  enabled: boolean;
  priority: number;
  cache_ttl_seconds: number;
  created_at: string;
  updated_at: string;
}

type StoredProvider = Omit<CredentialProviderRow, 'enabled'> & { enabled: number };

const PROVIDER_COLUMNS = 'id, name, provider_type, token_sealed, enabled, priority, cache_ttl_seconds, created_at, updated_at';

/** Providers belong to the organisation: one namespace of names, no project. */
export class CredentialProvidersRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO credential_providers (${PROVIDER_COLUMNS}) VALUES (@id, @name, @provider_type, @token_sealed, @enabled, @priority,
          @cache_ttl_seconds, @created_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE credential_providers SET name = @name, token_sealed = @token_sealed, enabled = @enabled, priority = @priority,
          cache_ttl_seconds = @cache_ttl_seconds, updated_at = @updated_at WHERE id = @id`,
      ),
      byId: db.prepare<[string], StoredProvider>(`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE id = ?`),
      byName: db.prepare<[string], StoredProvider>(`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE name = ?`),
      enabled: db.prepare<[], StoredProvider>(`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE enabled = 1 ORDER BY priority, seq`),
      remove: db.prepare(`DELETE FROM credential_providers WHERE id = ?`),
    };
  }

  /** Throws UniqueViolation when the name is taken. */
  insert(row: CredentialProviderRow): void {
    unique(() => this.stmts.insert.run(toStoredProvider(row)));
  }

  /** Throws UniqueViolation when a new name is taken. */
  update(row: CredentialProviderRow): void {
    unique(() => this.stmts.update.run(toStoredProvider(row)));
  }

  get(id: string): CredentialProviderRow | undefined {
    const row = this.stmts.byId.get(id);
    return row && fromStoredProvider(row);
  }

  getByName(name: string): CredentialProviderRow | undefined {
    const row = this.stmts.byName.get(name);
    return row && fromStoredProvider(row);
  }

  /** Enabled providers in the order `auto` tries them: priority, then age. */
  enabled(): CredentialProviderRow[] {
    return this.stmts.enabled.all().map(fromStoredProvider);
  }

  remove(id: string): void {
    this.stmts.remove.run(id);
  }

  list(q: { query?: string; offset: number; limit: number }): { rows: CredentialProviderRow[]; hasMore: boolean } {
    const params: Record<string, unknown> = { limit: q.limit + 1, offset: q.offset };
    let where = '';
    if (q.query) {
      where = `WHERE id = @id OR lower(name) LIKE @query ESCAPE '\\'`;
      params.id = q.query;
      params.query = likePattern(q.query);
    }
    const rows = this.db
      .prepare<Record<string, unknown>, StoredProvider>(`SELECT ${PROVIDER_COLUMNS} FROM credential_providers ${where} ORDER BY seq LIMIT @limit OFFSET @offset`)
      .all(params);
    return { rows: rows.slice(0, q.limit).map(fromStoredProvider), hasMore: rows.length > q.limit };
  }
}

function toStoredProvider(row: CredentialProviderRow): StoredProvider {
  return { ...row, enabled: row.enabled ? 1 : 0 };
}

function fromStoredProvider(row: StoredProvider): CredentialProviderRow {
  return { ...row, enabled: row.enabled === 1 };
}

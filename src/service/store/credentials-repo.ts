// Credentials per project and the organisation's credential providers. Secrets arrive sealed
// (secrets-box.ts) and leave sealed: this module never sees a plaintext value, secret or token.
import type { Database, Queryable } from './database.js';
import { modifyRow } from './row-lock.js';
import { likePattern, raw, sql } from './sql.js';

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

const CREDENTIAL_COLUMNS = raw('id, project_id, name, domain, value_keys, values_sealed, sso_provider, totp_sealed, created_at, updated_at');

export class CredentialsRepo {
  constructor(private readonly db: Database) {}

  /** Throws UniqueViolation when the name is taken in the project. */
  async insert(row: CredentialRow): Promise<void> {
    await this.db.run(sql`INSERT INTO credentials (${CREDENTIAL_COLUMNS}) VALUES (${row.id}, ${row.project_id}, ${row.name}, ${row.domain},
      ${JSON.stringify(row.value_keys)}, ${row.values_sealed}, ${row.sso_provider}, ${row.totp_sealed}, ${row.created_at}, ${row.updated_at})`);
  }

  /**
   * Reads the credential and writes what `change` makes of it, in one transaction with the row locked, so
   * concurrent changes (an update merging values, a login flow saving what was typed) each see the other's.
   * `change` answering undefined writes nothing. Throws UniqueViolation when a new name is taken.
   */
  async modify(id: string, change: (row: CredentialRow) => CredentialRow | undefined): Promise<CredentialRow | undefined> {
    return modifyRow(this.db, { read: sql`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE id = ${id}`, decode: fromStored, write: updateCredential }, change);
  }

  async get(id: string): Promise<CredentialRow | undefined> {
    const row = await this.db.get<StoredCredential>(sql`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE id = ${id}`);
    return row && fromStored(row);
  }

  async getByName(projectId: string | null, name: string): Promise<CredentialRow | undefined> {
    const row = await this.db.get<StoredCredential>(
      sql`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE coalesce(project_id, '') = ${projectId ?? ''} AND name = ${name}`,
    );
    return row && fromStored(row);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM credentials WHERE id = ${id}`);
  }

  /** One page of a project's credentials, oldest first. */
  async list(q: CredentialListQuery): Promise<{ rows: CredentialRow[]; hasMore: boolean }> {
    let where = sql`coalesce(project_id, '') = ${q.projectId ?? ''}`;
    if (q.domain !== undefined) where = sql`${where} AND lower(domain) = lower(${q.domain})`;
    if (q.query) {
      const pattern = likePattern(q.query);
      where = sql`${where} AND (id = ${q.query} OR lower(name) LIKE ${pattern} ESCAPE '\\' OR lower(domain) LIKE ${pattern} ESCAPE '\\')`;
    }
    const rows = await this.db.all<StoredCredential>(
      sql`SELECT ${CREDENTIAL_COLUMNS} FROM credentials WHERE ${where} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map(fromStored), hasMore: rows.length > q.limit };
  }
}

async function updateCredential(db: Queryable, row: CredentialRow): Promise<void> {
  await db.run(sql`UPDATE credentials SET name = ${row.name}, value_keys = ${JSON.stringify(row.value_keys)}, values_sealed = ${row.values_sealed},
    sso_provider = ${row.sso_provider}, totp_sealed = ${row.totp_sealed}, updated_at = ${row.updated_at} WHERE id = ${row.id}`);
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

const PROVIDER_COLUMNS = raw('id, name, provider_type, token_sealed, enabled, priority, cache_ttl_seconds, created_at, updated_at');

/** Providers belong to the organisation: one namespace of names, no project. */
export class CredentialProvidersRepo {
  constructor(private readonly db: Database) {}

  /** Throws UniqueViolation when the name is taken. */
  async insert(row: CredentialProviderRow): Promise<void> {
    await this.db.run(sql`INSERT INTO credential_providers (${PROVIDER_COLUMNS}) VALUES (${row.id}, ${row.name}, ${row.provider_type},
      ${row.token_sealed}, ${row.enabled}, ${row.priority}, ${row.cache_ttl_seconds}, ${row.created_at}, ${row.updated_at})`);
  }

  /** As CredentialsRepo.modify: read, change and write one provider atomically. */
  async modify(id: string, change: (row: CredentialProviderRow) => CredentialProviderRow | undefined): Promise<CredentialProviderRow | undefined> {
    return modifyRow(this.db, { read: sql`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE id = ${id}`, decode: fromStoredProvider, write: updateProvider }, change);
  }

  async get(id: string): Promise<CredentialProviderRow | undefined> {
    const row = await this.db.get<StoredProvider>(sql`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE id = ${id}`);
    return row && fromStoredProvider(row);
  }

  async getByName(name: string): Promise<CredentialProviderRow | undefined> {
    const row = await this.db.get<StoredProvider>(sql`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE name = ${name}`);
    return row && fromStoredProvider(row);
  }

  /** Enabled providers in the order `auto` tries them: priority, then age. */
  async enabled(): Promise<CredentialProviderRow[]> {
    const rows = await this.db.all<StoredProvider>(sql`SELECT ${PROVIDER_COLUMNS} FROM credential_providers WHERE enabled = 1 ORDER BY priority, seq`);
    return rows.map(fromStoredProvider);
  }

  async remove(id: string): Promise<void> {
    await this.db.run(sql`DELETE FROM credential_providers WHERE id = ${id}`);
  }

  async list(q: { query?: string; offset: number; limit: number }): Promise<{ rows: CredentialProviderRow[]; hasMore: boolean }> {
    const where = q.query ? sql`WHERE id = ${q.query} OR lower(name) LIKE ${likePattern(q.query)} ESCAPE '\\'` : raw('');
    const rows = await this.db.all<StoredProvider>(
      sql`SELECT ${PROVIDER_COLUMNS} FROM credential_providers ${where} ORDER BY seq LIMIT ${q.limit + 1} OFFSET ${q.offset}`,
    );
    return { rows: rows.slice(0, q.limit).map(fromStoredProvider), hasMore: rows.length > q.limit };
  }
}

async function updateProvider(db: Queryable, row: CredentialProviderRow): Promise<void> {
  await db.run(sql`UPDATE credential_providers SET name = ${row.name}, token_sealed = ${row.token_sealed}, enabled = ${row.enabled},
    priority = ${row.priority}, cache_ttl_seconds = ${row.cache_ttl_seconds}, updated_at = ${row.updated_at} WHERE id = ${row.id}`);
}

function fromStoredProvider(row: StoredProvider): CredentialProviderRow {
  return { ...row, enabled: Number(row.enabled) === 1 };
}

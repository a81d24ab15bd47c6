// Credentials of a project: login values and a TOTP secret for a domain. Both are sealed before they are
// stored (each under a context naming its record, so a sealed value moved to another record does not open)
// and opened only to merge an update, to answer a TOTP code, or for a login flow to fill a form.
import type { Credential, CredentialCreateParams, CredentialUpdateParams } from '../../../api/types.js';
import { newId } from '../../ids.js';
import type { SecretsBox } from '../../secrets-box.js';
import type { CredentialListQuery, CredentialRow, CredentialsRepo } from '../../store/credentials-repo.js';
import { DomainError, conflict, notFound } from '../errors.js';
import { lookUpInProject } from '../find-in-project.js';
import { normalizeTotpSecret, totpCodeAt, type TotpCode } from './totp.js';
import { UniqueViolation } from '../../store/unique.js';

export interface CredentialStoreDeps {
  repo: CredentialsRepo;
  secrets: SecretsBox;
  now: () => Date;
}

/** What a login flow fills a form with. */
export interface CredentialSecrets {
  values: Record<string, string>;
  /** The stored TOTP secret (base32 or an otpauth URI), for totpCodeAt. */
  totp: string | null;
  sso_provider: string | null;
}

/** A credential as answered, and whether the answer shows a fresh code (create and update that set a secret). */
export interface PresentOptions {
  single?: boolean;
  withTotpCode?: boolean;
}

export class CredentialStore {
  constructor(private readonly deps: CredentialStoreDeps) {}

  /** `input` names where the body came from (`body`), for the fields of 400s; so below. */
  async create(projectId: string | null, body: CredentialCreateParams, input: string): Promise<CredentialRow> {
    const id = newId();
    const at = this.deps.now().toISOString();
    const row: CredentialRow = {
      id,
      project_id: projectId,
      name: body.name,
      domain: body.domain.toLowerCase(),
      ...this.sealValues(id, body.values),
      sso_provider: body.sso_provider || null,
      totp_sealed: this.sealTotp(id, body.totp_secret, `${input}.totp_secret`),
      created_at: at,
      updated_at: at,
    };
    await this.unique(body.name, () => this.deps.repo.insert(row));
    return row;
  }

  /** By id, else by name, within the project; 404 otherwise. */
  find(projectId: string | null, idOrName: string): Promise<CredentialRow> {
    return lookUpInProject(this.deps.repo, projectId, idOrName, 'credential');
  }

  /**
   * Removals first, then `values` merged over what is left, as the hosted API documents. Merged over the
   * stored values as they are when written (one transaction), so concurrent updates of other keys stay.
   */
  async update(row: CredentialRow, body: CredentialUpdateParams, input: string): Promise<CredentialRow> {
    const updatedAt = this.deps.now().toISOString();
    const totpSealed = body.totp_secret !== undefined ? this.sealTotp(row.id, body.totp_secret, `${input}.totp_secret`) : undefined;
    const change = (current: CredentialRow): CredentialRow => {
      const next: CredentialRow = { ...current, updated_at: updatedAt };
      if (body.name !== undefined) next.name = body.name;
      if (body.values !== undefined || body.remove_value_keys !== undefined) {
        const values = this.open(current).values;
        for (const key of body.remove_value_keys ?? []) delete values[key];
        Object.assign(values, body.values);
        Object.assign(next, this.sealValues(current.id, values));
      }
      if (body.sso_provider !== undefined) next.sso_provider = body.sso_provider || null;
      if (totpSealed !== undefined) next.totp_sealed = totpSealed;
      return next;
    };
    const next = await this.unique(body.name ?? row.name, () => this.deps.repo.modify(row.id, change));
    if (!next) throw notFound('credential', row.id);
    return next;
  }

  async delete(row: CredentialRow): Promise<void> {
    await this.deps.repo.remove(row.id);
  }

  list(q: CredentialListQuery): Promise<{ rows: CredentialRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  totpCode(row: CredentialRow): TotpCode {
    const secret = this.open(row).totp;
    if (!secret) {
      throw new DomainError('invalid', 'totp_not_configured', `credential '${row.name}' has no totp_secret; set one with PATCH /credentials/${row.id}`);
    }
    return totpCodeAt(secret, this.deps.now());
  }

  /** The plaintext, for a login flow. Never answered to a client. */
  open(row: CredentialRow): CredentialSecrets {
    const { secrets } = this.deps;
    return {
      values: row.values_sealed ? (JSON.parse(secrets.open(row.values_sealed, valuesContext(row.id))) as Record<string, string>) : {},
      totp: row.totp_sealed ? secrets.open(row.totp_sealed, totpContext(row.id)) : null,
      sso_provider: row.sso_provider,
    };
  }

  present(row: CredentialRow, opts: PresentOptions = {}): Credential {
    const out: Credential = {
      id: row.id,
      name: row.name,
      domain: row.domain,
      created_at: row.created_at,
      updated_at: row.updated_at,
      sso_provider: row.sso_provider,
      has_values: row.value_keys.length > 0,
      has_totp_secret: row.totp_sealed !== null,
    };
    if (opts.single) out.value_keys = row.value_keys;
    if (opts.withTotpCode && row.totp_sealed) {
      const { code, expires_at } = this.totpCode(row);
      out.totp_code = code;
      out.totp_code_expires_at = expires_at;
    }
    return out;
  }

  private sealValues(id: string, values: Record<string, string>): Pick<CredentialRow, 'value_keys' | 'values_sealed'> {
    const keys = Object.keys(values);
    return {
      value_keys: keys,
      values_sealed: keys.length ? this.deps.secrets.seal(JSON.stringify(values), valuesContext(id)) : null,
    };
  }

  /** An empty or absent secret stores none. */
  private sealTotp(id: string, secret: string | undefined, field: string): string | null {
    if (!secret?.trim()) return null;
    return this.deps.secrets.seal(normalizeTotpSecret(secret, field), totpContext(id));
  }

  private async unique<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof UniqueViolation) throw conflict(`a credential named '${name}' already exists in this project`);
      throw err;
    }
  }
}

const valuesContext = (id: string) => `credential:${id}:values`;
const totpContext = (id: string) => `credential:${id}:totp`;

// What both reads of the audit log share (the list, audit.ts, and the export, audit-export.ts): their
// window and filters, and a record as they answer it.
import type { AuditLogEntry } from '../../api/types.js';
import { invalidField } from '../errors.js';
import type { AuditQuery, AuditRecord } from '../store/audit-repo.js';

/** The filter parameters both reads take (the list and the export), as their query strings carry them. */
export interface AuditFilterParams {
  start: string;
  end: string;
  method?: string;
  exclude_method?: string | string[];
  path?: string;
  route?: string;
  status?: number;
  api_key_id?: string;
  project_id?: string;
  auth_strategy?: string;
  service?: string;
  search?: string;
  search_user_id?: string | string[];
}

export type AuditFilters = Omit<AuditQuery, 'after' | 'maxSeq' | 'limit'>;

/** The window and filters of a read; a window that is not one is a 400 naming the parameter. */
export function auditFilters(q: AuditFilterParams): AuditFilters {
  const startMs = parseTime(q.start, 'querystring.start');
  const endMs = parseTime(q.end, 'querystring.end');
  if (endMs <= startMs) throw invalidField('querystring.end', 'must be after start');
  return {
    startMs,
    endMs,
    method: q.method?.toUpperCase(),
    excludeMethods: list(q.exclude_method)?.map((m) => m.toUpperCase()),
    path: q.path,
    route: q.route,
    status: q.status,
    apiKeyId: q.api_key_id,
    projectId: q.project_id,
    authStrategy: q.auth_strategy || undefined,
    service: q.service,
    search: q.search || undefined,
    searchUserIds: list(q.search_user_id),
  };
}

/** A record as both reads answer it: an entry of the list, a line of the export. */
export function presentAuditRecord(row: AuditRecord): AuditLogEntry {
  return {
    timestamp: row.timestamp,
    method: row.method,
    path: row.path,
    route: row.route,
    status: row.status,
    duration_ms: row.duration_ms,
    client_ip: row.client_ip,
    domain: row.domain,
    user_agent: row.user_agent,
    user_id: row.api_key_id ?? '',
    email: '',
    auth_strategy: row.api_key_id ? 'api_key' : 'none',
    api_key_id: row.api_key_id,
    project_id: row.project_id,
    request_id: row.request_id,
  };
}

/** Repeated parameters, indexed arrays and comma-separated values (as the SDK sends arrays) all work. */
function list(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = [value].flat().flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

function parseTime(text: string, field: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2}))?$/.test(text) ? Date.parse(text.replace(' ', 'T')) : NaN;
  if (Number.isNaN(ms)) throw invalidField(field, 'must be an RFC 3339 time such as 2026-01-02T15:04:05Z');
  return ms;
}

// The service's domain errors: what went wrong, in the terms of the operation that failed. Host code throws
// these and never speaks HTTP; the edge (service/errors.ts) answers each kind with its status. Input fields
// are named by whoever hands the input over (a route passes `body.profile`), so host code names no request part.
import type { ErrorDetail } from '../../api/types.js';

/** What kind of failure it is, which decides how the edge answers. */
export type FailureKind =
  /** The input cannot be done as given, or not here (400). */
  | 'invalid'
  /** Not allowed to this caller or in this mode (403). */
  | 'forbidden'
  | 'not_found'
  /** The current state of things is in the way (409). */
  | 'conflict'
  /** A concurrency limit is reached (429). */
  | 'limit'
  /** An action failed for a reason other than its input (500). */
  | 'failed'
  /** Cannot be served right now: shutting down, a launch failed (503). */
  | 'unavailable'
  /** The disk is full (507). */
  | 'no_space'
  /** A destination reached on the caller's behalf failed or could not be reached (502). */
  | 'bad_gateway'
  /** A destination reached on the caller's behalf did not answer in time (504). */
  | 'gateway_timeout';

export class DomainError extends Error {
  override name = 'DomainError';
  constructor(
    readonly kind: FailureKind,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    /** Seconds the client should wait before trying again (Retry-After), where waiting helps. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new DomainError('invalid', 'bad_request', message, details);
/** `field` is the input's path as the caller named it (`body.viewport.width`); the message starts with it. */
export const invalidField = (field: string, message: string) =>
  badRequest(`${field}: ${message}`, [{ code: 'invalid_input', field, message: `${field}: ${message}` }]);
export const forbidden = (message: string) => new DomainError('forbidden', 'forbidden', message);
export const notFound = (what: string, id: string) => new DomainError('not_found', 'not_found', `${what} '${id}' not found`);
export const conflict = (message: string) => new DomainError('conflict', 'conflict', message);
export const unavailable = (code: string, message: string) => new DomainError('unavailable', code, message);

/** The shape of one ajv error as Fastify hands it over. */
export interface ValidationIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns ajv output into `invalid_input` details that name each field (`body.viewport.width`). */
export function validationDetails(part: string, issues: ValidationIssue[]): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    const path = issue.instancePath.split('/').filter(Boolean).map(decodePointer);
    if (issue.keyword === 'additionalProperties') path.push(String(issue.params.additionalProperty));
    if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
    const field = [part, ...path].join('.');
    const message = `${field}: ${describe(issue)}`;
    if (seen.has(message)) continue;
    seen.add(message);
    details.push({ code: 'invalid_input', field, message });
  }
  return details;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function describe(issue: ValidationIssue): string {
  switch (issue.keyword) {
    case 'additionalProperties':
      return 'unknown field';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message ?? issue.keyword;
  }
}

// The HTTP edge of errors: the one place that turns any thrown value (a domain error from host code or a
// route, an HTTP-only ServiceError, a validation failure) into a status and the wire's Error body.
// Handlers throw; they never write error responses themselves.
import type { ErrorBody, ErrorDetail } from '../api/types.js';
import { DomainError, validationDetails, type FailureKind, type ValidationIssue } from './host/errors.js';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

// Routes and host code throw the same domain errors; this module adds what only HTTP has.
export { badRequest, conflict, forbidden, invalidField, notFound, unavailable, validationDetails } from './host/errors.js';

export const unauthorized = (message = 'missing or invalid API key') =>
  new ServiceError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' });

/** What a path no route serves answers; on the hosted wire only, each route of ours answers it too (strict-wire.ts). */
export const noRoute = (method: string, url: string) => new ServiceError(404, 'not_found', `no route ${method} ${url.split('?')[0]}`);

/** The status each kind of domain failure answers with. */
const STATUS: Record<FailureKind, number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  limit: 429,
  failed: 500,
  unavailable: 503,
  no_space: 507,
  bad_gateway: 502,
  gateway_timeout: 504,
};

/** The status an error thrown by a handler answers with, where it is one of ours. */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof ServiceError) return err.status;
  if (err instanceof DomainError) return STATUS[err.kind];
  return undefined;
}

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: ValidationIssue[];
  validationContext?: string;
}

/** Maps anything thrown while serving a request to a status, headers and the Error body. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (err instanceof ServiceError || err instanceof DomainError) {
    const body: ErrorBody = { code: err.code, message: err.message };
    if (err.details?.length) body.details = err.details;
    const headers = err instanceof ServiceError ? err.headers : err.retryAfterS === undefined ? undefined : { 'retry-after': String(err.retryAfterS) };
    return { status: statusOf(err)!, body, headers };
  }
  const e = err as FastifyLikeError;
  if (e && Array.isArray(e.validation)) {
    const details = validationDetails(e.validationContext ?? 'body', e.validation);
    const message = details.map((d) => d.message).join('; ') || 'invalid request';
    return { status: 400, body: { code: 'bad_request', message, details } };
  }
  // Fastify's own client errors (bad JSON, wrong content type, body too large) carry a 4xx status.
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    const code = e.statusCode === 413 ? 'payload_too_large' : e.statusCode === 415 ? 'unsupported_media_type' : 'bad_request';
    return { status: e.statusCode, body: { code, message: stripFastifyPrefix(e.message) } };
  }
  return { status: 500, body: { code: 'internal_error', message: 'internal error; see the service log' } };
}

function stripFastifyPrefix(message: string): string {
  return message.replace(/^FST_[A-Z_]+:\s*/, '');
}

/** Longest path segment the router takes: a 255-character name, each character percent-encoded. */
export const MAX_PARAM_LENGTH = 255 * 9;

/** The router's refusals (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH and the like) in the Error shape. */
export function frameworkError(err: { code?: string; message: string }): { status: number; body: ErrorBody } {
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, body: { code: 'uri_too_long', message: `a path segment is longer than ${MAX_PARAM_LENGTH} characters` } };
    case 'FST_ERR_BAD_URL':
      return { status: 400, body: { code: 'bad_request', message: 'the URL is not valid: a path segment has a malformed percent-encoding' } };
    default:
      return { status: 400, body: { code: 'bad_request', message: 'the request could not be routed' } };
  }
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'request_header_fields_too_large', 'the request headers are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request took too long to arrive'],
  HPE_URI_OVERFLOW: [414, 'uri_too_long', 'the request URL is too long'],
};

/** Answers a connection-level client error (before any request exists) in the Error shape, then closes. */
export function answerClientError(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'bad_request', 'the request is not valid HTTP'];
  socket.end(rawErrorAnswer(status, { code, message }));
}

/** A whole HTTP answer in the Error shape, for a socket with no ServerResponse (a refused upgrade); it closes the connection. */
export function rawErrorAnswer(status: number, body: ErrorBody, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${status} ${body.code.replace(/_/g, ' ')}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${extra}Connection: close\r\n\r\n${text}`;
}

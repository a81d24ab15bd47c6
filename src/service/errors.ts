// One family of typed errors for the whole service, and the one place that turns any thrown value
// into the wire's Error body. Handlers throw; they never write error responses themselves.
import type { ErrorBody, ErrorDetail } from '../api/types.js';

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

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new ServiceError(400, 'bad_request', message, details);
export const invalidField = (field: string, message: string) =>
  badRequest(`${field}: ${message}`, [{ code: 'invalid_input', field, message: `${field}: ${message}` }]);
export const unauthorized = (message = 'missing or invalid API key') =>
  new ServiceError(401, 'unauthorized', message, undefined, { 'www-authenticate': 'Bearer' });
export const forbidden = (message: string) => new ServiceError(403, 'forbidden', message);
export const notFound = (what: string, id: string) => new ServiceError(404, 'not_found', `${what} '${id}' not found`);
export const conflict = (message: string) => new ServiceError(409, 'conflict', message);
export const unavailable = (code: string, message: string) => new ServiceError(503, code, message);

/** The shape of one ajv error as Fastify hands it over. */
interface ValidationIssue {
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

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: ValidationIssue[];
  validationContext?: string;
}

/** Maps anything thrown while serving a request to a status, headers and the Error body. */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  if (err instanceof ServiceError) {
    const body: ErrorBody = { code: err.code, message: err.message };
    if (err.details?.length) body.details = err.details;
    return { status: err.status, body, headers: err.headers };
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
  const body = JSON.stringify({ code, message });
  socket.end(
    `HTTP/1.1 ${status} ${code.replace(/_/g, ' ')}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

// HTTP requests made from inside a session's network: `POST /browsers/{id}/curl` (the SDK's
// BrowserCurlParams and BrowserCurlResponse) and the raw form behind the SDK's `browsers.fetch`.
import type { FromSchema } from 'json-schema-to-ts';

const sessionToken = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: "The session's token (the `jwt` of its `cdp_ws_url`), in place of an API key; the SDK sends it when it routes the call to `base_url`",
} as const;

const timeoutMs = {
  type: 'integer',
  minimum: 1,
  maximum: 600_000,
  description: 'How long to wait for the answer, in milliseconds (default 30000)',
} as const;

export const curlQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { jwt: sessionToken },
} as const;

export const browserCurlParams = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 8192, description: 'Target URL (http or https)' },
    method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], description: 'Default GET' },
    headers: {
      type: 'object',
      maxProperties: 100,
      propertyNames: { minLength: 1, maxLength: 255 },
      additionalProperties: { type: 'string', maxLength: 16_384 },
      description: 'Request headers, over the defaults (`User-Agent` of the session\'s browser, `Accept: */*`)',
    },
    body: { type: 'string', description: 'Request body, sent as UTF-8' },
    response_encoding: { type: 'string', enum: ['utf8', 'base64'], description: 'How `body` of the answer is written; default utf8' },
    timeout_ms: timeoutMs,
  },
} as const;

export const browserCurlResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['status', 'headers', 'body', 'duration_ms'],
  properties: {
    status: { type: 'integer', description: 'The status the destination answered (403 with `X-Bcs-Egress-Refused` when the egress policy refused it)' },
    headers: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      description: 'Response headers by canonical name (`Content-Type`), each with all its values',
    },
    body: { type: 'string', description: 'The response body, UTF-8 or base64 as `response_encoding` asked (at most 10 MiB)' },
    duration_ms: { type: 'integer', description: 'From sending the request to the end of the response body' },
  },
} as const;

export const curlRawQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 8192, description: 'Target URL (http or https)' },
    jwt: sessionToken,
    timeout_ms: { ...timeoutMs, description: 'How long to wait for the status and headers, in milliseconds (default 30000); the body then streams for as long as it takes' },
  },
} as const;

export type BrowserCurlParams = FromSchema<typeof browserCurlParams>;
export type BrowserCurlResponse = FromSchema<typeof browserCurlResponse>;

// Public surface of the API transport. Import from here, not from the individual modules.

export { CloudClient } from './client.js';
export type { ClientOptions } from './client.js';
export type { ApiResponse, HttpMethod, RequestOptions, Requester } from './requester.js';
export { ApiConnectionError, ApiError, ApiTimeoutError, errorFromResponse } from './errors.js';
export type { ApiErrorInit, ResponseErrorInput } from './errors.js';
export { BrowsersResource } from './browsers.js';
export type { BrowserRetrieveOptions } from './browsers.js';
export type { OffsetPage } from './pagination.js';
export { stringifyQuery } from './query.js';
export type * from './types.js';

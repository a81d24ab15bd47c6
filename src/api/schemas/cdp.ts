// CDP discovery under a session's CDP address (`/browsers/{id}/cdp/json/...`): Chromium's own documents,
// with every address in them pointing at the service's authenticated proxy. Chromium decides their fields
// (they differ between versions), so beyond the ones clients read, whatever it sends is passed on.
import type { FromSchema } from 'json-schema-to-ts';

const proxyUrl = { type: 'string', description: "The service's authenticated proxy, on the address the client used" } as const;

/** `GET .../json/version`. */
export const cdpVersion = {
  type: 'object',
  additionalProperties: true,
  required: ['Browser', 'Protocol-Version', 'webSocketDebuggerUrl'],
  properties: {
    Browser: { type: 'string' },
    'Protocol-Version': { type: 'string' },
    'User-Agent': { type: 'string' },
    'V8-Version': { type: 'string' },
    'WebKit-Version': { type: 'string' },
    webSocketDebuggerUrl: { ...proxyUrl, description: "The browser target's WebSocket through the proxy" },
  },
} as const;

/** One entry of `GET .../json/list` (and `.../json`). */
export const cdpTarget = {
  type: 'object',
  additionalProperties: true,
  required: ['id', 'type', 'url'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', description: '`page`, `iframe`, `service_worker`, `browser_ui`, ...' },
    title: { type: 'string' },
    url: { type: 'string' },
    description: { type: 'string' },
    webSocketDebuggerUrl: { ...proxyUrl, description: "The target's WebSocket through the proxy" },
    devtoolsFrontendUrl: { type: 'string', description: 'A DevTools frontend whose `ws`/`wss` parameter names the proxy' },
  },
} as const;

/** The session token, as `cdp_ws_url` carries it; without one, the API key authorises the request. */
export const cdpDiscoveryQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { jwt: { type: 'string', minLength: 1, maxLength: 255, description: "The session's CDP token (from `cdp_ws_url`)" } },
} as const;

export type CdpVersion = FromSchema<typeof cdpVersion>;
export type CdpTarget = FromSchema<typeof cdpTarget>;

export { BYPASS_HOST_PATTERN } from './bypass.js';
export { ProxyForwarder } from './forwarder.js';
export { ProxyService, presentProxy } from './proxies.js';
export type { Upstream } from './upstream.js';

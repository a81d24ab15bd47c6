export { ProxyForwarder } from './forwarder.js';
export type { EgressRefusal } from './forwarder.js';
export { ProxyService, presentProxy, type BrowserProxyFields } from './proxies.js';
export type { Upstream } from './upstream.js';
export { requestThroughEgress, type EgressRequest, type EgressResponse } from './egress-client.js';

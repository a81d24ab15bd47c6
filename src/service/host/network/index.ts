export { checkNetwork, isLoopback, parseAddress, privateHostProblem, PrivateHosts } from './addresses.js';
export { EgressPolicy, EgressRefused, ServicePorts } from './policy.js';
export type { EgressMode, EgressRefusalCode } from './policy.js';
export { SessionNetwork, devtoolsSocketOf, sessionNetDir } from './namespace.js';
export { DEVTOOLS_PORT, EGRESS_PORT } from './ports.js';

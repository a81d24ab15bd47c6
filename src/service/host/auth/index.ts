// Managed auth: connections, their login flows, and the browsers those run in.
export { AuthConnections } from './connections.js';
export { LoginFlows, type FlowOverrides } from './flows.js';
export { flowBrowserLauncher, type FlowBrowser, type LaunchFlowBrowser } from './flow-browser.js';
export { HealthChecks } from './health.js';

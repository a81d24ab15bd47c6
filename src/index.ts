// The package's library entry: the API transport, the scenario compiler and the embedded service.
export * from './api/index.js';
export * from './scenario/index.js';
export { startService, type RunningService, type ServiceOptions } from './service/index.js';

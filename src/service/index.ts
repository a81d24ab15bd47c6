export { SandboxRequiredError, startService, type RunningService, type ServiceOptions } from './service.js';

export { AppKeys } from './keys.js';
export type { AppKeyScope } from './keys.js';
export { Deployments, deploymentSettled } from './deployments.js';
export { Invocations, invocationSettled } from './invocations.js';
export { ActionWorkers } from './workers.js';
export { WorkerLauncher } from './worker-launch.js';

export { SandboxRequiredError, startService, type RunningService, type ServiceOptions } from './service.js';
export { AlertNetworksError, alertNetworksOf } from './host/monitors/index.js';
export { DatabaseInUseError } from './store/open-store.js';
export { publicOriginOf } from './routes/ws-origin.js';
export { SecretsKeyError } from './secrets-box.js';
export { startReplica, type ReplicaOptions, type RunningReplica } from './cluster/replica.js';
export { clusterKeyHeaderOf } from './cluster/cluster-key.js';

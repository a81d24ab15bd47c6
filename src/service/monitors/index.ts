export { Monitors, type MonitorsDeps } from './monitors.js';
export { MonitorScheduler, type RaisedAlert, type SchedulerDeps } from './scheduler.js';
export { AlertSender, type Delivery } from './alerts.js';
export { CheckLauncher } from './check-launcher.js';
export { SuiteBundles } from './bundle.js';
export { runCheckAttempt, type CheckAttempt } from './check-run.js';
export { readAllSecrets } from './secrets.js';
export type { Alert, Channel } from './alert.js';

// Browser sessions as a use case: created the same way for every caller, and shown in one shape.
export { BrowserLauncher, type BrowserLauncherDeps, type Launch } from './launch.js';
export { presentSession, presentSessions, type PresentDeps } from './present.js';
export { BrowserKeeper, type KeeperDeps } from './keep.js';

export { ReplayManager } from './replays.js';
export type { MarkerInput } from './replays.js';

export { webvtt } from './mp4-chapters.js';
export { ReplayManager } from './replays.js';
export type { MarkerInput } from './replays.js';

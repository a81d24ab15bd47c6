export { copyProfileTree } from './files.js';
export { ProfileStore } from './profiles.js';

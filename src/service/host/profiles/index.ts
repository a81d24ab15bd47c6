export { copyProfileTree } from './files.js';
export { ProfileStore } from './profiles.js';
export { prepareProfileLoad } from './session-load.js';

export { ExtensionStore, extensionSupport } from './extensions.js';
export { MAX_LOADED_EXTENSIONS, loadIntoSession } from './session-load.js';

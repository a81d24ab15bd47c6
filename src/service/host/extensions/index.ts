export { ExtensionStore, extensionSupport } from './extensions.js';

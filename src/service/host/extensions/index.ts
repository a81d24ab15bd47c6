export { ExtensionStore, NAME_PATTERN, extensionSupport } from './extensions.js';

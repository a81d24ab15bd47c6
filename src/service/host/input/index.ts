export { CdpInputDevice } from './cdp.js';
export { Computer } from './computer.js';
export { Computers } from './computers.js';
export type { InputTarget } from './computers.js';
export type { BatchAction } from './computer.js';
export type { FrameStream, InputDevice } from './device.js';
export { isModifier, keyForChar, lookupKey, MODIFIER_BITS, type KeyDef } from './keysyms.js';
export { Mutex } from './mutex.js';
export { X11InputDevice } from './x11.js';

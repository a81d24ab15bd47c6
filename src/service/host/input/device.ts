// The primitives an input backend provides. The CDP backend (headless) and the X11 backend (headful,
// xdotool) implement them; everything composed from them (clicks, drags, combos, batches) lives in
// computer.ts so both backends behave the same.
import type { Region } from '../../../api/schemas/computer.js';
import type { KeyDef } from './keysyms.js';

export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward';

export type { Region };

/** A live picture of the screen (the live view): JPEG frames as the screen changes, until stopped. */
export interface FrameStream {
  stop(): Promise<void>;
  /** Settles when the stream ends, asked to or not (the browser went away, the capture failed). */
  readonly ended: Promise<void>;
}

export interface FrameOptions {
  /** JPEG quality, 1-100. */
  quality: number;
  /** At most this many frames a second. */
  maxFps: number;
}

export interface InputDevice {
  readonly kind: 'cdp' | 'x11';
  screenSize(): { width: number; height: number };
  mouseMove(x: number, y: number, modifiers: number): Promise<void>;
  mouseButton(kind: 'down' | 'up', x: number, y: number, button: MouseButton, clickCount: number, modifiers: number): Promise<void>;
  /** Wheel ticks: positive deltaY scrolls down, positive deltaX right. */
  wheel(x: number, y: number, deltaX: number, deltaY: number, modifiers: number): Promise<void>;
  key(kind: 'down' | 'up', def: KeyDef, modifiers: number): Promise<void>;
  /** Types one character (key down with its text, key up). */
  typeChar(def: KeyDef): Promise<void>;
  /** Types a whole text at once, where the backend does that better than character by character. */
  typeText?(text: string, delayMs: number, signal?: AbortSignal): Promise<void>;
  screenshot(region?: Region): Promise<Buffer>;
  /** Streams the screen as `screenshot` sees it, as JPEG frames. */
  streamFrames(onFrame: (jpeg: Buffer) => void, opts: FrameOptions): Promise<FrameStream>;
  setCursorHidden(hidden: boolean): Promise<void>;
  readClipboard(): Promise<string>;
  writeClipboard(text: string): Promise<void>;
  close(): Promise<void> | void;
}

// What a live view client may send, checked, and turned into input on the session's device. The client
// speaks in browser terms (KeyboardEvent.key, WheelEvent pixels, button names); the device in ours (X11
// keysyms, wheel ticks, modifier bits), so the same link drives a headless page and an X display alike.
import { LIVE_MESSAGE_TYPES, liveMessage } from '../../../api/schemas/live-view.js';
import type { LiveMessage } from '../../../api/types.js';
import { validatorOnFirstUse } from '../validator.js';
import { isModifier, keyForChar, lookupKey, MODIFIER_BITS, type Computer, type KeyDef } from '../input/index.js';

const validate = validatorOnFirstUse<LiveMessage>(liveMessage, { allErrors: false });

/** The message in `raw`, or the reason it is not one. */
export function parseLiveMessage(raw: string): LiveMessage | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { error: 'a message must be JSON' };
  }
  if (validate(value)) return value;
  const type = (value as { type?: unknown } | null)?.type;
  return {
    error: typeof type === 'string' && (LIVE_MESSAGE_TYPES as readonly string[]).includes(type)
      ? `a '${type}' message has missing or out-of-range fields`
      : `a message's type must be one of ${LIVE_MESSAGE_TYPES.join(', ')}`,
  };
}

/** Pixels of wheel movement per wheel tick, as Chromium on Linux scrolls for a notch. */
const TICK_PX = 100;
/** Two presses this close in time and place are a double click (and so on). */
const MULTI_CLICK_MS = 500;
const MULTI_CLICK_PX = 4;

/** One viewer's input state: held modifiers, the click count, wheel movement short of a tick. */
export class LiveInput {
  private modifiers = 0;
  private lastPress: { at: number; x: number; y: number; button: string; count: number } | undefined;
  private wheelRest = { x: 0, y: 0 };

  constructor(
    /** The session's controller now: a browser restarted in place gets a new one. */
    private readonly controller: () => Promise<Computer>,
  ) {}

  /** `receivedAt`: when the message arrived, which is what tells a double click (not when its turn came). */
  async apply(msg: Exclude<LiveMessage, { type: 'ping' }>, receivedAt: number): Promise<void> {
    const computer = await this.controller();
    const { device } = computer;
    const { width, height } = device.screenSize();
    const clamp = (x: number, y: number) => ({ x: Math.min(width - 1, Math.max(0, x)), y: Math.min(height - 1, Math.max(0, y)) });
    switch (msg.type) {
      case 'mouse': {
        const { x, y } = clamp(msg.x, msg.y);
        if (msg.action === 'move') return computer.live({ x, y }, () => device.mouseMove(x, y, this.modifiers));
        const button = msg.button ?? 'left';
        const count = msg.action === 'down' ? this.clickCount(x, y, button, receivedAt) : (this.lastPress?.count ?? 1);
        return computer.live({ x, y }, () => device.mouseButton(msg.action as 'down' | 'up', x, y, button, count, this.modifiers));
      }
      case 'wheel': {
        const { x, y } = clamp(msg.x, msg.y);
        const ticks = this.wheelTicks(msg.delta_x, msg.delta_y);
        if (!ticks.x && !ticks.y) return;
        return computer.live({ x, y }, () => device.wheel(x, y, ticks.x, ticks.y, this.modifiers));
      }
      case 'key': {
        const def = keyDef(msg.key);
        if (!def) return; // Dead, Unidentified, media keys: nothing a page can be sent
        if (isModifier(def)) {
          const bit = MODIFIER_BITS[def.key]!;
          this.modifiers = msg.action === 'down' ? this.modifiers | bit : this.modifiers & ~bit;
        }
        return computer.live(undefined, () => device.key(msg.action, def, this.modifiers));
      }
      case 'text':
        return computer.live(undefined, async () => {
          if (device.typeText) return device.typeText(msg.text, 0);
          for (const char of msg.text) await device.typeChar(keyForChar(char));
        });
    }
  }

  private clickCount(x: number, y: number, button: string, at: number): number {
    const last = this.lastPress;
    const repeat = last && last.button === button && at - last.at <= MULTI_CLICK_MS && Math.hypot(x - last.x, y - last.y) <= MULTI_CLICK_PX;
    this.lastPress = { at, x, y, button, count: repeat ? last.count + 1 : 1 };
    return this.lastPress.count;
  }

  /** Whole ticks in the movement so far; a touchpad's small deltas add up to one. */
  private wheelTicks(dx: number, dy: number): { x: number; y: number } {
    this.wheelRest.x += dx;
    this.wheelRest.y += dy;
    const x = Math.trunc(this.wheelRest.x / TICK_PX);
    const y = Math.trunc(this.wheelRest.y / TICK_PX);
    this.wheelRest.x -= x * TICK_PX;
    this.wheelRest.y -= y * TICK_PX;
    return { x, y };
  }
}

/** A browser's KeyboardEvent.key as a device key: named keys by name, any other single character as text. */
function keyDef(key: string): KeyDef | undefined {
  return lookupKey(key) ?? ([...key].length === 1 ? keyForChar(key) : undefined);
}

// OS-level input for one session, composed from an InputDevice's primitives: the mouse position is
// tracked exactly, coordinates are checked against the screen, and one lock serialises all input so a
// batch runs without interleaving.
import type { ClickParams, DragParams, MoveParams, PressKeyParams, ScrollParams, TypeParams } from '../../../api/schemas/computer.js';
import { DomainError, invalidField } from '../errors.js';
import type { InputDevice, Region } from './device.js';
import { MODIFIER_BITS, isModifier, keyForChar, parseCombo, type KeyDef } from './keysyms.js';
import { Mutex } from './mutex.js';
import { setTimeout as wait } from 'node:timers/promises';

export type { ClickParams, DragParams, MoveParams, PressKeyParams, ScrollParams, TypeParams };

export type BatchAction =
  | { type: 'click_mouse'; click_mouse: ClickParams }
  | { type: 'move_mouse'; move_mouse: MoveParams }
  | { type: 'type_text'; type_text: TypeParams }
  | { type: 'press_key'; press_key: PressKeyParams }
  | { type: 'scroll'; scroll: ScrollParams }
  | { type: 'drag_mouse'; drag_mouse: DragParams }
  | { type: 'set_cursor'; set_cursor: { hidden: boolean } }
  | { type: 'sleep'; sleep: { duration_ms: number } };

const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

export class Computer {
  private readonly lock = new Mutex();
  private position = { x: 0, y: 0 };

  constructor(readonly device: InputDevice) {}

  /** Runs `work` holding the session's input lock. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.lock.run(work);
  }

  /** Raw input from a live view, under the lock; the mouse position follows it when it moved the mouse. */
  live(at: { x: number; y: number } | undefined, work: () => Promise<void>): Promise<void> {
    return this.exclusive(async () => {
      await work();
      if (at) this.position = { ...at };
    });
  }

  mousePosition(): { x: number; y: number } {
    return { ...this.position };
  }

  async clickMouse(p: ClickParams, field: string): Promise<void> {
    this.checkPoint(p.x, p.y, field);
    const button = p.button ?? 'left';
    await this.withHeldKeys(p.hold_keys, `${field}.hold_keys`, async (mods) => {
      await this.moveTo(p.x, p.y, mods);
      const type = p.click_type ?? 'click';
      if (type === 'down') return this.device.mouseButton('down', p.x, p.y, button, 1, mods);
      if (type === 'up') return this.device.mouseButton('up', p.x, p.y, button, 1, mods);
      for (let i = 1; i <= (p.num_clicks ?? 1); i++) {
        await this.device.mouseButton('down', p.x, p.y, button, i, mods);
        await this.device.mouseButton('up', p.x, p.y, button, i, mods);
      }
    });
  }

  async moveMouse(p: MoveParams, field: string): Promise<void> {
    this.checkPoint(p.x, p.y, field);
    await this.withHeldKeys(p.hold_keys, `${field}.hold_keys`, async (mods) => {
      if (p.smooth === false) return this.moveTo(p.x, p.y, mods);
      const { width, height } = this.device.screenSize();
      // The curve bows out; keep every point on the screen.
      const points = curve(this.position, { x: p.x, y: p.y }, p.duration_ms).map((pt) => ({
        x: Math.min(width - 1, Math.max(0, pt.x)),
        y: Math.min(height - 1, Math.max(0, pt.y)),
      }));
      const pause = p.duration_ms ? p.duration_ms / points.length : 0;
      for (const pt of points) {
        await this.moveTo(pt.x, pt.y, mods);
        await sleep(pause);
      }
    });
  }

  async pressKey(p: PressKeyParams, field: string): Promise<void> {
    const combos = p.keys.map((k, i) => parseCombo(k, `${field}.keys[${i}]`));
    await this.withHeldKeys(p.hold_keys, `${field}.hold_keys`, async (held) => {
      for (const keys of combos) {
        let mods = held;
        for (const def of keys) {
          if (isModifier(def)) mods |= MODIFIER_BITS[def.key]!;
          await this.device.key('down', def, mods);
        }
        await sleep(p.duration ?? 0);
        for (const def of [...keys].reverse()) {
          if (isModifier(def)) mods &= ~MODIFIER_BITS[def.key]!;
          await this.device.key('up', def, mods);
        }
      }
    });
  }

  /**
   * `signal`: the caller gave up (its client went away). Slow typing (up to 10 s a character) stops there
   * instead of holding the input lock for minutes after nobody waits for it.
   */
  async typeText(p: TypeParams, signal?: AbortSignal): Promise<void> {
    if (this.device.typeText) return this.device.typeText(p.text, p.delay ?? 0, signal);
    let first = true;
    for (const char of p.text) {
      if (!first && p.delay) await wait(p.delay, undefined, { signal });
      signal?.throwIfAborted();
      first = false;
      await this.device.typeChar(keyForChar(char));
    }
  }

  async scroll(p: ScrollParams, field: string): Promise<void> {
    this.checkPoint(p.x, p.y, field);
    await this.withHeldKeys(p.hold_keys, `${field}.hold_keys`, async (mods) => {
      await this.moveTo(p.x, p.y, mods);
      // Vertical first, then horizontal, as the hosted service documents.
      if (p.delta_y) await this.device.wheel(p.x, p.y, 0, p.delta_y, mods);
      if (p.delta_x) await this.device.wheel(p.x, p.y, p.delta_x, 0, mods);
    });
  }

  async dragMouse(p: DragParams, field: string): Promise<void> {
    p.path.forEach(([x, y], i) => this.checkPoint(x, y, `${field}.path[${i}]`));
    const button = p.button ?? 'left';
    const [start, ...rest] = p.path.map(([x, y]) => ({ x, y }));
    await this.withHeldKeys(p.hold_keys, `${field}.hold_keys`, async (mods) => {
      await this.moveTo(start!.x, start!.y, mods);
      await this.device.mouseButton('down', start!.x, start!.y, button, 1, mods);
      await sleep(p.delay ?? 0);
      const smooth = p.smooth ?? false;
      const steps = smooth ? Math.max(4, Math.round((p.duration_ms ?? 200) / 16 / rest.length)) : (p.steps_per_segment ?? 10);
      const pause = smooth ? (p.duration_ms ?? 200) / (steps * rest.length) : (p.step_delay_ms ?? 0);
      let from = start!;
      for (const to of rest) {
        for (let s = 1; s <= steps; s++) {
          const t = smooth ? easeInOut(s / steps) : s / steps;
          await this.moveTo(Math.round(from.x + (to.x - from.x) * t), Math.round(from.y + (to.y - from.y) * t), mods);
          await sleep(pause);
        }
        from = to;
      }
      await this.device.mouseButton('up', from.x, from.y, button, 1, mods);
    });
  }

  /** `field` names where the region came from (`body.region`); so for the other actions' fields. */
  screenshot(region: Region | undefined, field: string): Promise<Buffer> {
    if (region) {
      const { width, height } = this.device.screenSize();
      if (region.x + region.width > width || region.y + region.height > height) {
        throw invalidField(field, `must lie within the ${width}x${height} screen`);
      }
    }
    return this.device.screenshot(region);
  }

  /** Runs a batch in order under the lock; the first failure stops it and names its index. */
  batch(actions: BatchAction[], field: string): Promise<void> {
    return this.exclusive(async () => {
      for (const [i, action] of actions.entries()) {
        try {
          await this.perform(action, `${field}[${i}].${action.type}`);
        } catch (err) {
          if (err instanceof DomainError) {
            throw new DomainError(err.kind, err.code, `actions[${i}] (${action.type}) failed: ${err.message}`, err.details);
          }
          throw new DomainError('failed', 'action_failed', `actions[${i}] (${action.type}) failed: ${(err as Error).message}`);
        }
      }
    });
  }

  private perform(action: BatchAction, field: string): Promise<void> {
    switch (action.type) {
      case 'click_mouse':
        return this.clickMouse(action.click_mouse, field);
      case 'move_mouse':
        return this.moveMouse(action.move_mouse, field);
      case 'type_text':
        return this.typeText(action.type_text);
      case 'press_key':
        return this.pressKey(action.press_key, field);
      case 'scroll':
        return this.scroll(action.scroll, field);
      case 'drag_mouse':
        return this.dragMouse(action.drag_mouse, field);
      case 'set_cursor':
        return this.device.setCursorHidden(action.set_cursor.hidden);
      case 'sleep':
        return sleep(action.sleep.duration_ms);
    }
  }

  private async moveTo(x: number, y: number, mods: number): Promise<void> {
    await this.device.mouseMove(x, y, mods);
    this.position = { x, y };
  }

  private checkPoint(x: number, y: number, field: string): void {
    const { width, height } = this.device.screenSize();
    if (x < 0 || x >= width) throw invalidField(`${field}.x`.replace('].x', '][0]'), `must be within 0..${width - 1} (the screen is ${width}x${height})`);
    if (y < 0 || y >= height) throw invalidField(`${field}.y`.replace('].y', '][1]'), `must be within 0..${height - 1} (the screen is ${width}x${height})`);
  }

  /** Holds `hold_keys` down around `work`, passing the modifier bits they add. */
  private async withHeldKeys(names: string[] | undefined, field: string, work: (mods: number) => Promise<void>): Promise<void> {
    const held: KeyDef[] = (names ?? []).flatMap((n, i) => parseCombo(n, `${field}[${i}]`));
    let mods = 0;
    for (const def of held) {
      if (isModifier(def)) mods |= MODIFIER_BITS[def.key]!;
      await this.device.key('down', def, mods);
    }
    try {
      await work(mods);
    } finally {
      for (const def of held.reverse()) {
        if (isModifier(def)) mods &= ~MODIFIER_BITS[def.key]!;
        await this.device.key('up', def, mods);
      }
    }
  }
}

/** A gently curved path (quadratic Bézier) from `a` to `b`, like a hand moving a mouse. */
function curve(a: { x: number; y: number }, b: { x: number; y: number }, durationMs?: number): { x: number; y: number }[] {
  const dist = Math.hypot(b.x - a.x, b.y - a.y);
  const steps = Math.max(2, Math.min(60, Math.round(durationMs ? durationMs / 16 : dist / 40)));
  const bend = Math.min(dist * 0.2, 80);
  const cx = (a.x + b.x) / 2 - ((b.y - a.y) / (dist || 1)) * bend;
  const cy = (a.y + b.y) / 2 + ((b.x - a.x) / (dist || 1)) * bend;
  const points: { x: number; y: number }[] = [];
  for (let i = 1; i <= steps; i++) {
    const t = easeInOut(i / steps);
    const x = (1 - t) ** 2 * a.x + 2 * (1 - t) * t * cx + t ** 2 * b.x;
    const y = (1 - t) ** 2 * a.y + 2 * (1 - t) * t * cy + t ** 2 * b.y;
    points.push({ x: Math.round(x), y: Math.round(y) });
  }
  points[points.length - 1] = { x: b.x, y: b.y };
  return points;
}

function easeInOut(t: number): number {
  return t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
}

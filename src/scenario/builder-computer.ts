// The action list of a `computer` step, built with calls: `c => c.click(640, 400).type('hi').key('Return')`.
// Each call appends the one-key action YAML would write, and remembers where it was made.

import { callerOf, type CallSite } from './builder-sites.js';
import type { ClickMouse, ComputerAction, DragMouse, Duration, HoldKeys, MoveMouse, Scroll } from './builder-types.js';

export class ComputerActions {
  /** @internal the actions so far, each with the call that added it. */
  readonly entries: { action: ComputerAction; site: CallSite | undefined }[] = [];

  /** Click at `x`, `y` (screen pixels); `num_clicks: 2` double-clicks. */
  click(x: number, y: number, opts: Omit<ClickMouse, 'x' | 'y'> = {}): this {
    return this.push({ click_mouse: { x, y, ...opts } }, this.click);
  }

  /** Move the pointer to `x`, `y`. */
  move(x: number, y: number, opts: Omit<MoveMouse, 'x' | 'y'> = {}): this {
    return this.push({ move_mouse: { x, y, ...opts } }, this.move);
  }

  /** Type text, optionally with a pause (ms) between keys. */
  type(text: string, opts: { delay?: number } = {}): this {
    return this.push({ type_text: opts.delay === undefined ? text : { text, delay: opts.delay } }, this.type);
  }

  /** Press X11 keys (`Return`, `ctrl+a`): one, or a list in order; with options, held for `duration` ms. */
  key(keys: string | string[], opts: { duration?: number; hold_keys?: HoldKeys } = {}): this {
    const plain = opts.duration === undefined && opts.hold_keys === undefined;
    const press_key = plain ? keys : { keys: Array.isArray(keys) ? keys : [keys], ...opts };
    return this.push({ press_key }, this.key);
  }

  /** Scroll the wheel at `x`, `y` by `delta_y` (down) and `delta_x` (right) ticks. */
  scroll(x: number, y: number, opts: Omit<Scroll, 'x' | 'y'> = {}): this {
    return this.push({ scroll: { x, y, ...opts } }, this.scroll);
  }

  /** Press at the first point, move through the others, release at the last. */
  drag(points: [number, number][], opts: Omit<DragMouse, 'path'> = {}): this {
    return this.push({ drag_mouse: { path: points, ...opts } }, this.drag);
  }

  /** Show or hide the mouse cursor. */
  cursor(hidden: boolean): this {
    return this.push({ set_cursor: { hidden } }, this.cursor);
  }

  /** A pause inside the batch (at most 30s). */
  sleep(duration: Duration): this {
    return this.push({ sleep: duration }, this.sleep);
  }

  /** Any action as YAML writes it, e.g. `{ press_key: { keys: ['a'], duration: 500 } }`. */
  action(action: ComputerAction): this {
    return this.push(action, this.action);
  }

  private push(action: ComputerAction, method: Function): this {
    this.entries.push({ action, site: callerOf(method) });
    return this;
  }
}

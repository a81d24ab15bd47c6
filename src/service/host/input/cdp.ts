// Input for headless sessions over CDP: Input.dispatchMouseEvent/KeyEvent on the tab in front (front-tab.ts),
// Page.captureScreenshot for the screen, and the clipboard through the page with permissions granted.
import { DomainError } from '../errors.js';
import { CdpConnection, CdpError, startScreencast } from '../browser/index.js';
import type { FrameOptions, FrameStream, InputDevice, MouseButton, Region } from './device.js';
import { FrontTab } from './front-tab.js';
import { shifted, type KeyDef } from './keysyms.js';

const BUTTON_BITS: Record<MouseButton, number> = { left: 1, right: 2, middle: 4, back: 8, forward: 16 };
/** Pixels one wheel tick scrolls, as Chromium on Linux does for a notch. */
const WHEEL_TICK_PX = 100;
/** What Chromium answers a call on a tab that has gone (closed, or its session detached with it). */
const TAB_GONE = /Session with given id not found|No target with given id|Target closed|Not attached to an active page/;
/** How often a screencast checks that its tab is still the one in front. */
const FOLLOW_MS = 500;

export class CdpInputDevice implements InputDevice {
  readonly kind = 'cdp' as const;
  private sessionId: string | undefined;
  private targetId: string | undefined;
  private pressed = 0;
  private attaching: Promise<string> | undefined;

  private constructor(
    private readonly cdp: CdpConnection,
    private readonly size: { width: number; height: number },
    private readonly front: FrontTab,
  ) {
    // The tab we drive may close; the next call attaches to whichever tab is left.
    cdp.on('Target.detachedFromTarget', (params: { sessionId: string }) => {
      if (params.sessionId !== this.sessionId) return;
      this.sessionId = undefined;
      this.front.forget();
    });
  }

  static async connect(wsEndpoint: string, size: { width: number; height: number }): Promise<CdpInputDevice> {
    const cdp = await CdpConnection.connect(wsEndpoint);
    await cdp.send('Browser.grantPermissions', { permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'] });
    const front = new FrontTab(cdp, wsEndpoint);
    await front.watch();
    return new CdpInputDevice(cdp, size, front);
  }

  screenSize(): { width: number; height: number } {
    return this.size;
  }

  async mouseMove(x: number, y: number, modifiers: number): Promise<void> {
    await this.page('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers, buttons: this.pressed, button: this.pressedButton() });
  }

  async mouseButton(kind: 'down' | 'up', x: number, y: number, button: MouseButton, clickCount: number, modifiers: number): Promise<void> {
    if (kind === 'down') this.pressed |= BUTTON_BITS[button];
    else this.pressed &= ~BUTTON_BITS[button];
    await this.page('Input.dispatchMouseEvent', {
      type: kind === 'down' ? 'mousePressed' : 'mouseReleased',
      x,
      y,
      button,
      buttons: this.pressed,
      clickCount,
      modifiers,
    });
  }

  async wheel(x: number, y: number, deltaX: number, deltaY: number, modifiers: number): Promise<void> {
    await this.page('Input.dispatchMouseEvent', {
      type: 'mouseWheel',
      x,
      y,
      deltaX: deltaX * WHEEL_TICK_PX,
      deltaY: deltaY * WHEEL_TICK_PX,
      modifiers,
    });
  }

  async key(kind: 'down' | 'up', pressed: KeyDef, modifiers: number): Promise<void> {
    const def = modifiers & 8 ? shifted(pressed) : pressed;
    // With Ctrl, Alt or Meta held a key is a shortcut, not text: send it raw so editing commands apply.
    const typesText = kind === 'down' && def.text !== undefined && (modifiers & ~8) === 0;
    await this.page('Input.dispatchKeyEvent', {
      type: kind === 'up' ? 'keyUp' : typesText ? 'keyDown' : 'rawKeyDown',
      key: def.key,
      code: def.code,
      windowsVirtualKeyCode: def.keyCode,
      nativeVirtualKeyCode: def.keyCode,
      modifiers,
      location: def.location ?? 0,
      ...(typesText ? { text: def.text, unmodifiedText: def.text } : {}),
    });
  }

  async typeChar(def: KeyDef): Promise<void> {
    const modifiers = def.shift ? 8 : 0;
    await this.page('Input.dispatchKeyEvent', {
      type: 'keyDown',
      key: def.key,
      code: def.code,
      windowsVirtualKeyCode: def.keyCode,
      modifiers,
      text: def.text ?? def.key,
      unmodifiedText: def.text ?? def.key,
    });
    await this.page('Input.dispatchKeyEvent', { type: 'keyUp', key: def.key, code: def.code, windowsVirtualKeyCode: def.keyCode, modifiers });
  }

  async screenshot(region?: Region): Promise<Buffer> {
    const { data } = await this.page<{ data: string }>('Page.captureScreenshot', {
      format: 'png',
      ...(region ? { clip: { ...region, scale: 1 } } : {}),
    });
    return Buffer.from(data, 'base64');
  }

  /**
   * Page.startScreencast on the tab input goes to. Chromium sends a frame when the page repaints and the
   * next only after an ack, so holding the ack back is what caps the rate. When the tab closes, the stream
   * moves to the tab that is left, as input does.
   */
  async streamFrames(onFrame: (jpeg: Buffer) => void, opts: FrameOptions): Promise<FrameStream> {
    const minGapMs = 1000 / opts.maxFps;
    let casting: string | undefined;
    let stopped = false;
    let lastAt = 0;
    const onScreencast = (params: { data: string; sessionId: number }, sessionId?: string) => {
      if (stopped || sessionId !== casting) return;
      const wait = Math.max(0, lastAt + minGapMs - Date.now());
      lastAt = Date.now() + wait;
      onFrame(Buffer.from(params.data, 'base64'));
      setTimeout(() => void this.cdp.send('Page.screencastFrameAck', { sessionId: params.sessionId }, sessionId).catch(() => {}), wait);
    };
    // Casts the front tab, moving from the one cast before when another came to the front.
    let moving: Promise<void> | undefined;
    const follow = (): Promise<void> =>
      (moving ??= (async () => {
        try {
          const target = await this.attach();
          if (stopped || target === casting) return;
          const before = casting;
          casting = target;
          if (before) await this.cdp.send('Page.stopScreencast', {}, before).catch(() => {});
          const { width, height } = this.size;
          const params = { format: 'jpeg', quality: opts.quality, maxWidth: width, maxHeight: height, everyNthFrame: 1 } as const;
          // Not started (the tab went, or never came out of its renderer swap): the next follow tries it afresh.
          if (!(await startScreencast(this.cdp, target, params, () => !stopped && casting === target)) && casting === target) casting = undefined;
        } finally {
          moving = undefined;
        }
      })());
    const onDetached = (params: { sessionId: string }) => {
      if (stopped || params.sessionId !== casting) return;
      casting = undefined;
      // The tab went away: cast the one in front now, once input has let go of the old one.
      setTimeout(() => void follow().catch(() => {}), 50);
    };
    this.cdp.on('Page.screencastFrame', onScreencast);
    this.cdp.on('Target.detachedFromTarget', onDetached);
    const watch = setInterval(() => {
      if (this.front.due()) void follow().catch(() => {});
    }, FOLLOW_MS);
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(watch);
      this.cdp.off('Page.screencastFrame', onScreencast);
      this.cdp.off('Target.detachedFromTarget', onDetached);
      if (casting) await this.cdp.send('Page.stopScreencast', {}, casting).catch(() => {});
    };
    let endStream: () => void = () => {};
    const ended = Promise.race([this.cdp.closed, new Promise<void>((resolve) => (endStream = resolve))]);
    try {
      await follow();
    } catch (err) {
      await stop();
      throw err;
    }
    return {
      ended,
      stop: async () => {
        await stop();
        endStream();
      },
    };
  }

  /** Nothing draws a cursor on a headless screen, so it is hidden either way; the call is accepted. */
  async setCursorHidden(_hidden: boolean): Promise<void> {}

  async readClipboard(): Promise<string> {
    return this.withClipboard<string>('read', 'navigator.clipboard.readText()');
  }

  async writeClipboard(text: string): Promise<void> {
    await this.withClipboard('write', `navigator.clipboard.writeText(${JSON.stringify(text)})`);
  }

  /**
   * The clipboard is the browser's, but its API only exists in secure contexts. On a page that is not
   * one (a data: URL, plain http to another host, about:blank opened over CDP) the call runs in a
   * short-lived background tab on file:///dev/null: file: pages are secure contexts in every Chromium
   * build, the headless shell included (which has no chrome:// pages), and that one is empty for any user.
   */
  private async withClipboard<T>(action: 'read' | 'write', expression: string): Promise<T> {
    const sessionId = await this.attach();
    const secure = await this.evaluateIn<boolean>(sessionId, 'isSecureContext', action).catch(() => false);
    if (secure) return this.evaluateIn<T>(sessionId, expression, action);
    const { targetId } = await this.cdp.send<{ targetId: string }>('Target.createTarget', { url: 'file:///dev/null', background: true });
    this.front.ownTab(targetId);
    try {
      const { sessionId: helper } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      return await this.evaluateIn<T>(helper, expression, action);
    } finally {
      await this.cdp.send('Target.closeTarget', { targetId }).catch(() => {});
    }
  }

  close(): void {
    this.cdp.close();
  }

  private pressedButton(): MouseButton | 'none' {
    for (const [name, bit] of Object.entries(BUTTON_BITS)) if (this.pressed & bit) return name as MouseButton;
    return 'none';
  }

  /**
   * The clipboard API wants a focused document; focus emulation gives that without a window manager.
   * A failure is told in our words: the page's exception text says nothing useful to an API client.
   */
  private async evaluateIn<T>(sessionId: string, expression: string, action: 'read' | 'write'): Promise<T> {
    await this.cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true }, sessionId);
    const res = await this.cdp.send<{ result: { value: T }; exceptionDetails?: { exception?: { className?: string; description?: string } } }>(
      'Runtime.evaluate',
      { expression, awaitPromise: true, userGesture: true, returnByValue: true },
      sessionId,
    );
    if (res.exceptionDetails) {
      const refused = /NotAllowedError/.test(res.exceptionDetails.exception?.description ?? res.exceptionDetails.exception?.className ?? '');
      throw new DomainError('conflict',
        'clipboard_unavailable',
        refused
          ? `the browser refused to ${action} the clipboard (its clipboard permission was withdrawn or no document could take focus)`
          : `the browser's clipboard could not be ${action === 'read' ? 'read' : 'written'} just now; try again`,
      );
    }
    return res.result.value;
  }

  /**
   * Sends to the tab in front. A tab that closed before we heard of it (its context closed a moment ago)
   * refuses the call with its session gone: the call goes, once, to the tab in front now, so a click sent
   * just after a tab closes lands on the one left instead of being lost.
   */
  private async page<T = unknown>(method: string, params: object): Promise<T> {
    const sessionId = await this.attach();
    try {
      return await this.cdp.send<T>(method, params, sessionId);
    } catch (err) {
      if (!(err instanceof CdpError) || !TAB_GONE.test(err.message)) throw err;
      if (this.sessionId === sessionId) {
        this.sessionId = undefined;
        this.front.forget();
      }
      return this.cdp.send<T>(method, params, await this.attach());
    }
  }

  /**
   * Attaches to the tab in front (front-tab.ts): the "screen" of a headless browser, as a headful one would
   * show it. Re-checked when a tab opened or closed, and now and then (a page brought to the front).
   */
  private async attach(): Promise<string> {
    // One check at a time: while one is under way the front tab counts as checked, so a caller that did
    // not wait for it would send to the tab from before (a click meant for a page just opened).
    while (this.attaching) await this.attaching.catch(() => {});
    if (this.sessionId && !this.front.due()) return this.sessionId;
    this.attaching = this.reattach();
    try {
      return await this.attaching;
    } finally {
      this.attaching = undefined;
    }
  }

  private async reattach(): Promise<string> {
    let targetId = await this.front.current();
    if (targetId === this.targetId && this.sessionId) return this.sessionId;
    let sessionId: string;
    try {
      if (!targetId) throw new Error('no tab');
      ({ sessionId } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }));
    } catch {
      // The list named a tab that was closing: the one in front now, once.
      this.front.forget();
      targetId = await this.front.current();
      if (!targetId) throw new Error('the browser has no open tab');
      ({ sessionId } = await this.cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true }));
    }
    const before = this.sessionId;
    this.targetId = targetId;
    this.sessionId = sessionId;
    if (before) void this.cdp.send('Target.detachFromTarget', { sessionId: before }).catch(() => {});
    return sessionId;
  }

}

// The input controller of each live session: created on a session's first computer action, on its X
// display when it has one and over CDP otherwise, and closed with the session.
import type { XDisplay } from '../browser/index.js';
import type { SessionScope } from '../session-scope.js';
import { CdpInputDevice } from './cdp.js';
import { Computer } from './computer.js';
import type { InputDevice } from './device.js';
import { X11InputDevice } from './x11.js';

/** What a controller needs of its session. */
export interface InputTarget extends SessionScope {
  /** Input waits until the service's own set-up of the browser is done. */
  readonly ready: Promise<void>;
  readonly screen?: XDisplay;
  readonly chromium: { readonly wsEndpoint: string };
}

export class Computers {
  private readonly bySession = new Map<string, Promise<Computer>>();

  /** The session's controller; `viewport` is the page size a CDP controller draws and clicks in. */
  forSession(session: InputTarget, viewport: { width: number; height: number }): Promise<Computer> {
    let computer = this.bySession.get(session.id);
    if (computer) return computer;
    const device = session.ready.then(
      (): Promise<InputDevice> | InputDevice =>
        session.screen ? new X11InputDevice(session.screen) : CdpInputDevice.connect(session.chromium.wsEndpoint, viewport),
    );
    const created = device.then((d) => new Computer(d));
    computer = created;
    this.bySession.set(session.id, created);
    created.catch(() => this.bySession.delete(session.id));
    session.cleanups.push(async () => {
      this.bySession.delete(session.id);
      await (await created.catch(() => undefined))?.device.close();
    });
    return created;
  }

  /**
   * Restart hook: a CDP controller was connected to the old Chromium, so the next action makes a new one
   * (after `ready`). An X display outlives its browser: its controller stays.
   */
  readonly onRestart = async (session: InputTarget): Promise<void> => {
    if (session.screen) return;
    const computer = this.bySession.get(session.id);
    this.bySession.delete(session.id);
    await (await computer?.catch(() => undefined))?.device.close();
  };
}

// Each live session's browser as last launched (a restart replaces it), and how it is stopped when the
// session ends.
import { closeCleanly, type WarmBrowser } from '../browser/index.js';
import type { LiveSession } from './types.js';

export class SessionBrowsers {
  private readonly running = new Map<string, WarmBrowser>();
  /** Sessions that write their profile back: closed cleanly rather than killed, so their files are complete. */
  private readonly cleanStops = new Set<string>();

  get(id: string): WarmBrowser | undefined {
    return this.running.get(id);
  }

  set(id: string, warm: WarmBrowser): void {
    this.running.set(id, warm);
  }

  /** The session's profile is written back at its end: its browser is closed cleanly then. */
  closeCleanlyAtEnd(id: string): void {
    this.cleanStops.add(id);
  }

  /** Stops the session's Chromium and its network for good (the session is ending). */
  async stop(session: LiveSession): Promise<void> {
    const { id } = session;
    if (this.cleanStops.delete(id)) await closeCleanly(session.chromium);
    await session.chromium.kill();
    await this.running.get(id)?.network?.close();
    this.running.delete(id);
  }
}

// Starting a tab's screencast, for the recorder and the live view alike. A tab navigating from about:blank
// to its first page swaps renderers, and for that moment Chromium answers Page.startScreencast with "Not
// attached to an active page"; a busy machine widens the moment. A caller that gave up there would go on
// showing the tab it left, so the start is tried again while the caller still wants that tab.
import type { CdpConnection } from './cdp-connection.js';

export interface ScreencastParams {
  format: 'jpeg' | 'png';
  quality: number;
  maxWidth: number;
  maxHeight: number;
  everyNthFrame: number;
}

/** 2 s of tries, at most 100 ms apart: a renderer swap takes milliseconds, a loaded machine longer. */
const ATTEMPTS = 30;

/** Starts the screencast of the tab attached as `sessionId`; false when `stillWanted` says stop or the tries run out. */
export async function startScreencast(cdp: CdpConnection, sessionId: string, params: ScreencastParams, stillWanted: () => boolean): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await cdp.send('Page.startScreencast', params, sessionId);
      return true;
    } catch (err) {
      if (!stillWanted() || attempt >= ATTEMPTS) return false;
      await new Promise((r) => setTimeout(r, Math.min(100, 10 * attempt)));
    }
  }
}

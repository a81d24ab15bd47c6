// A kept session's browser outlives the client that drove it. Chromium disposes a browser context when the
// DevTools connection that made it closes (Playwright makes every context so: `disposeOnDetach`), which
// would take the failed scenario's page with it as the runner disconnects. So when a client leaves a kept
// session, the proxy keeps its connection to Chromium open until the session ends, and hands the browser
// over: nothing is auto-attached or paused for that connection any more (a popup opens as it would for a
// person), and its sessions on the pages are detached, so no request waits on an interception and no dialog
// on a handler (overrides set through those sessions, a locale, go with them). The contexts and their pages
// stay as they were.
import type { Socket } from 'node:net';
import type { FrameForwarder } from './cdp-command-filter.js';
import type { LiveSession } from './types.js';
import { OPCODE, encodeWsFrame, type WsFrame } from './ws-frames.js';

/** Our commands' ids: far above any a client has used on the connection, whose late answers are dropped. */
const FIRST_ID = 1_000_000_000;
const ANSWER = Buffer.from('{"id":');

interface TargetInfo {
  targetId: string;
  attached: boolean;
}

/**
 * Holds `upstream` (a browser-level connection whose client has gone, at a message boundary) for the rest of
 * `session`; `browserFrames` is its reader of Chromium's side, taken over from the client.
 */
export function holdBrowserConnection(session: LiveSession, upstream: Socket, browserFrames: FrameForwarder): void {
  const waiting = new Map<number, (result: unknown) => void>();
  let nextId = FIRST_ID;
  const send = (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      if (upstream.destroyed) return resolve(undefined);
      const id = nextId++;
      waiting.set(id, resolve);
      upstream.write(encodeWsFrame(OPCODE.text, Buffer.from(JSON.stringify({ id, method, params })), true));
    });
  browserFrames.divert((frame: WsFrame) => {
    if (frame.opcode === OPCODE.close) return void upstream.destroy();
    // Events are dropped unread; only answers to our own commands are parsed.
    if (!waiting.size || frame.opcode !== OPCODE.text || !frame.fin || !frame.raw.includes(ANSWER)) return;
    let msg: { id?: unknown; result?: unknown };
    try {
      msg = JSON.parse(frame.payload().toString('utf8')) as typeof msg;
    } catch {
      return;
    }
    const resolve = typeof msg.id === 'number' ? waiting.get(msg.id) : undefined;
    if (!resolve) return;
    waiting.delete(msg.id as number);
    resolve(msg.result);
  });
  upstream.once('close', () => {
    for (const resolve of waiting.values()) resolve(undefined);
    waiting.clear();
  });
  // Errors after the handover end the hold quietly: the session goes on, only the contexts may go.
  upstream.on('error', () => upstream.destroy());
  session.cleanups.push(() => void upstream.destroy());
  void handOver(send);
}

async function handOver(send: (method: string, params: object) => Promise<unknown>): Promise<void> {
  await send('Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true });
  const found = (await send('Target.getTargets', {})) as { targetInfos?: TargetInfo[] } | undefined;
  // By target: the client's own session ids went with it. A target some other client is attached to
  // answers an error, which is the point: only this connection's sessions are detached.
  const attached = (found?.targetInfos ?? []).filter((t) => t.attached);
  await Promise.all(attached.map((t) => send('Target.detachFromTarget', { targetId: t.targetId })));
}

// The two directions of a proxied CDP connection, frame by frame. Client commands are read as whole
// messages (a fragmented one too, so splitting a command cannot slip it past the check); a message
// that is not a download command goes on as the exact bytes that came. The browser's frames are written
// to the client whole, so the proxy's own answers (refusals) land between two of them.
import type { Socket } from 'node:net';
import { refusal, rewriteDownloadCommand, type CdpCommand, type DownloadNamer } from './cdp-downloads.js';
import { OPCODE, WsFrameReader, encodeWsFrame, type WsFrame } from './ws-frames.js';

/** Cheap pre-check before parsing: only messages naming the method are decoded. */
const NEEDLE = Buffer.from('DownloadBehavior');
/** The same for the browser's download events (Browser.downloadWillBegin, Browser.downloadProgress). */
const EVENT_NEEDLE = Buffer.from('"Browser.download');

/**
 * The download events of one client connection: the session's namer hears them, and the CDP sessions
 * (by sessionId, '' for the browser's own) whose events the proxy turned on unasked hide them.
 */
export interface DownloadEvents {
  namer: DownloadNamer;
  hidden: Set<string>;
}

export class CommandFilter {
  private readonly reader = new WsFrameReader({ afterHttpHead: false });
  private message: WsFrame[] = [];

  constructor(
    private readonly browserPath: (viewPath: string) => string,
    private readonly toBrowser: (bytes: Buffer) => void,
    private readonly toClient: (bytes: Buffer) => void,
    private readonly downloads?: DownloadEvents,
    /**
     * Told of the client's close frame; true keeps it from the browser (a kept session, cdp-hold.ts), whose
     * Chromium would otherwise close the connection and dispose the contexts made over it.
     */
    private readonly clientClosing?: () => boolean,
  ) {}

  /** Whether every message begun has been passed on whole: the browser's side is between two messages. */
  get atMessageBoundary(): boolean {
    return this.message.length === 0;
  }

  /** Throws on what the proxy cannot check (compressed frames); the caller drops the connection. */
  push(chunk: Buffer): void {
    for (const frame of this.reader.push(chunk).frames) {
      if (frame.rsv) throw new Error('compressed or extended WebSocket frames are not accepted');
      if (frame.opcode >= OPCODE.close) {
        if (frame.opcode === OPCODE.close && this.clientClosing?.()) return;
        this.toBrowser(frame.raw); // control frames may come between the fragments of a message
        continue;
      }
      this.message.push(frame);
      if (frame.fin) this.complete(this.message.splice(0));
    }
  }

  private complete(frames: WsFrame[]): void {
    const pass = () => frames.forEach((f) => this.toBrowser(f.raw));
    if (frames[0]!.opcode !== OPCODE.text) return pass();
    // A single frame (what CDP clients send) is searched masked; a fragmented message is unmasked first, as
    // the name may straddle two of its frames.
    if (frames.length === 1 && !frames[0]!.includes(NEEDLE)) return pass();
    const payload = frames.length === 1 ? frames[0]!.payload() : Buffer.concat(frames.map((f) => f.payload()));
    if (!payload.includes(NEEDLE)) return pass();
    let command: CdpCommand;
    try {
      command = JSON.parse(payload.toString('utf8')) as CdpCommand;
    } catch {
      return pass(); // Chromium answers a malformed message itself
    }
    const decision = command && typeof command === 'object' ? rewriteDownloadCommand(command, this.browserPath) : undefined;
    if (this.downloads && command?.method === 'Browser.setDownloadBehavior') {
      const key = typeof command.sessionId === 'string' ? command.sessionId : '';
      const named = decision && 'forward' in decision ? decision.named : undefined;
      if (named) this.downloads.namer.addFolder(named.folder);
      if (named && !named.clientWantsEvents) this.downloads.hidden.add(key);
      else this.downloads.hidden.delete(key);
    }
    if (!decision) return pass();
    if ('refuse' in decision) {
      this.toClient(encodeWsFrame(OPCODE.text, Buffer.from(JSON.stringify(refusal(command, decision.refuse))), false));
      return;
    }
    this.toBrowser(encodeWsFrame(OPCODE.text, Buffer.from(JSON.stringify(decision.forward)), true));
  }
}

/** Writes the browser's bytes to the client a whole frame at a time, with room for the proxy's own frames. */
export class FrameForwarder {
  private readonly reader = new WsFrameReader({ afterHttpHead: true });
  private open = false;
  private pending: Buffer[] = [];
  private diverted: ((frame: WsFrame) => void) | undefined;

  constructor(
    private readonly client: Socket,
    private readonly downloads?: DownloadEvents,
  ) {}

  /**
   * From now on the browser's frames go to `onFrame` instead of the client (a held connection, cdp-hold.ts).
   * The reader is kept, so a frame already half read is completed, not misread.
   */
  divert(onFrame: (frame: WsFrame) => void): void {
    this.diverted = onFrame;
  }

  push(chunk: Buffer): void {
    if (this.diverted) {
      for (const frame of this.reader.push(chunk).frames) this.diverted(frame);
      return;
    }
    const { head, frames } = this.reader.push(chunk);
    this.client.cork();
    if (head) {
      this.client.write(head);
      this.open = true;
      for (const frame of this.pending.splice(0)) this.client.write(frame);
    }
    for (const frame of frames) if (this.passes(frame)) this.client.write(frame.raw);
    this.client.uncork();
  }

  /** Download events go to the session's namer first; false for one the client never asked for. */
  private passes(frame: WsFrame): boolean {
    const downloads = this.downloads;
    // The browser's frames are unmasked: the raw bytes are searched as they are, and only while some
    // client has asked for GUID-named downloads.
    if (!downloads?.namer.active || frame.opcode !== OPCODE.text || !frame.fin || !frame.raw.includes(EVENT_NEEDLE)) return true;
    let msg: { method?: unknown; params?: unknown; sessionId?: unknown };
    try {
      msg = JSON.parse(frame.payload().toString('utf8')) as typeof msg;
    } catch {
      return true;
    }
    if (typeof msg.method !== 'string' || !msg.method.startsWith('Browser.download') || !msg.params || typeof msg.params !== 'object') return true;
    downloads.namer.onEvent(msg.method, msg.params as Record<string, unknown>);
    return !downloads.hidden.has(typeof msg.sessionId === 'string' ? msg.sessionId : '');
  }

  /** A frame of the proxy's own, written at the next frame boundary (after the handshake's answer). */
  inject(frame: Buffer): void {
    if (this.open) this.client.write(frame);
    else this.pending.push(frame);
  }
}

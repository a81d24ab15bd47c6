// WebSocket frames (RFC 6455) as the CDP proxy needs them: a reader that cuts a byte stream into whole
// frames (unmasking client payloads), and an encoder. The proxy forwards a frame's original bytes
// whenever it does not change the message, so only the few messages it rewrites are re-encoded.
import { randomBytes } from 'node:crypto';

export interface WsFrame {
  fin: boolean;
  /** Any of the RSV bits: set only by a negotiated extension (compression), which the proxy never allows. */
  rsv: boolean;
  opcode: number;
  /** The frame exactly as it arrived. */
  raw: Buffer;
  /** The payload, unmasked (computed when asked: most frames are forwarded as they are). */
  payload(): Buffer;
  /**
   * Whether the unmasked payload contains `needle`, found without unmasking it: most messages are passed
   * on unread, and unmasking a large one (Playwright's injected script, half a megabyte, sent to every new
   * page) in JavaScript cost the proxied connection ~50 ms per page.
   */
  includes(needle: Buffer): boolean;
}

export const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8 } as const;

/** Frames a CDP message may not exceed before the proxy gives up on the connection (Chromium's own cap is 256 MB). */
const MAX_FRAME_BYTES = 512 * 1024 * 1024;

export class WsFrameReader {
  /** Bytes not yet part of a whole frame, kept as chunks so a large frame is joined once, not per chunk. */
  private chunks: Buffer[] = [];
  private length = 0;
  /** While true the stream is still in its HTTP head (the browser's 101 answer), passed through as is. */
  private inHead: boolean;
  private headTail = Buffer.alloc(0);

  constructor(opts: { afterHttpHead: boolean }) {
    this.inHead = opts.afterHttpHead;
  }

  /** Whole frames (and, first, the HTTP head's bytes as `head`) from the bytes seen so far. */
  push(chunk: Buffer): { head?: Buffer; frames: WsFrame[] } {
    let head: Buffer | undefined;
    if (this.inHead) {
      const joined = Buffer.concat([this.headTail, chunk]);
      const end = joined.indexOf('\r\n\r\n');
      if (end < 0) {
        this.headTail = joined;
        return { frames: [] };
      }
      head = joined.subarray(0, end + 4);
      chunk = joined.subarray(end + 4);
      this.inHead = false;
    }
    if (chunk.length) {
      this.chunks.push(chunk);
      this.length += chunk.length;
    }
    const frames: WsFrame[] = [];
    for (;;) {
      const frame = this.next();
      if (!frame) break;
      frames.push(frame);
    }
    return { ...(head ? { head } : {}), frames };
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private next(): WsFrame | undefined {
    if (this.length < 2) return undefined;
    let b = this.peek(2);
    const masked = (b[1]! & 0x80) !== 0;
    const len7 = b[1]! & 0x7f;
    const lengthBytes = len7 === 126 ? 2 : len7 === 127 ? 8 : 0;
    const headerLength = 2 + lengthBytes + (masked ? 4 : 0);
    if (this.length < headerLength) return undefined;
    b = this.peek(headerLength);
    const length = len7 === 126 ? b.readUInt16BE(2) : len7 === 127 ? Number(b.readBigUInt64BE(2)) : len7;
    if (length > MAX_FRAME_BYTES) throw new Error(`a WebSocket frame of ${length} bytes is larger than the proxy accepts`);
    const total = headerLength + length;
    if (this.length < total) return undefined;
    b = this.peek(total);
    const raw = b.subarray(0, total);
    const rest = b.subarray(total);
    this.chunks = rest.length ? [rest, ...this.chunks.slice(1)] : this.chunks.slice(1);
    this.length -= total;
    const key = masked ? raw.subarray(2 + lengthBytes, headerLength) : undefined;
    const body = () => raw.subarray(headerLength);
    return {
      fin: (raw[0]! & 0x80) !== 0,
      rsv: (raw[0]! & 0x70) !== 0,
      opcode: raw[0]! & 0x0f,
      raw,
      payload: () => {
        const payload = Buffer.from(raw.subarray(headerLength));
        if (key) for (let i = 0; i < payload.length; i++) payload[i]! ^= key[i & 3]!;
        return payload;
      },
      includes: (needle) => (key ? maskedIncludes(body(), key, needle) : body().includes(needle)),
    };
  }
}

/**
 * Searches a masked payload for the masked forms of `needle`. Payload byte i is masked with key[i % 4], so
 * the needle reads differently by where it starts modulo 4: each of the four forms is searched natively,
 * and a hit counts only at an offset of its own residue.
 */
export function maskedIncludes(masked: Buffer, key: Buffer, needle: Buffer): boolean {
  for (let r = 0; r < 4; r++) {
    const form = Buffer.allocUnsafe(needle.length);
    for (let j = 0; j < needle.length; j++) form[j] = needle[j]! ^ key[(r + j) & 3]!;
    for (let at = masked.indexOf(form, r); at >= 0; at = masked.indexOf(form, at + 1)) {
      if ((at & 3) === r) return true;
    }
  }
  return false;
}

/** One final frame; `mask` for frames a client sends (RFC 6455 requires it), not for the server's. */
export function encodeWsFrame(opcode: number, payload: Buffer, mask: boolean): Buffer {
  const lengthBytes = payload.length < 126 ? 0 : payload.length < 65536 ? 2 : 8;
  const header = Buffer.alloc(2 + lengthBytes + (mask ? 4 : 0));
  header[0] = 0x80 | opcode;
  header[1] = (mask ? 0x80 : 0) | (lengthBytes === 0 ? payload.length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) header.writeUInt16BE(payload.length, 2);
  if (lengthBytes === 8) header.writeBigUInt64BE(BigInt(payload.length), 2);
  if (!mask) return Buffer.concat([header, payload]);
  const key = randomBytes(4);
  key.copy(header, 2 + lengthBytes);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i]! ^= key[i & 3]!;
  return Buffer.concat([header, body]);
}

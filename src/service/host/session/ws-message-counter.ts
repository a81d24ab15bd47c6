// Counts WebSocket messages in a byte stream without copying or decoding payloads: the CDP proxy pipes
// bytes untouched, and cdp_disconnect reports how many messages went through. Only frame headers are
// read (2 to 14 bytes per frame); payload lengths are skipped arithmetically.

const CRLFCRLF = [0x0d, 0x0a, 0x0d, 0x0a];

export class WsMessageCounter {
  /** Complete data messages seen (a fragmented message counts once, on its final frame). */
  count = 0;
  /** Whether a Close frame went by: the side that sent it ended the connection, whoever drops TCP first. */
  closeSeen = false;
  private header: number[] = [];
  private skip = 0;
  /** While > -1, still inside the HTTP handshake; the value is how much of CRLFCRLF has matched. */
  private httpMatched: number;

  /** `afterHttpHead`: the stream starts with an HTTP response head (Chromium's side of the proxy). */
  constructor(afterHttpHead = false) {
    this.httpMatched = afterHttpHead ? 0 : -1;
  }

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.httpMatched >= 0) {
        this.httpMatched = chunk[i] === CRLFCRLF[this.httpMatched] ? this.httpMatched + 1 : chunk[i] === 0x0d ? 1 : 0;
        i++;
        if (this.httpMatched === 4) this.httpMatched = -1;
        continue;
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      this.header.push(chunk[i]!);
      i++;
      const need = headerLength(this.header);
      if (need === undefined || this.header.length < need) continue;
      const b0 = this.header[0]!;
      const fin = (b0 & 0x80) !== 0;
      const opcode = b0 & 0x0f;
      if (fin && opcode < 0x8) this.count++;
      if (opcode === 0x8) this.closeSeen = true;
      this.skip = payloadLength(this.header);
      this.header = [];
    }
  }
}

/** The full header length once the first two bytes are known. */
function headerLength(h: number[]): number | undefined {
  if (h.length < 2) return undefined;
  const len7 = h[1]! & 0x7f;
  const masked = (h[1]! & 0x80) !== 0;
  return 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (masked ? 4 : 0);
}

function payloadLength(h: number[]): number {
  const len7 = h[1]! & 0x7f;
  if (len7 < 126) return len7;
  if (len7 === 126) return (h[2]! << 8) | h[3]!;
  let n = 0;
  for (let k = 2; k < 10; k++) n = n * 256 + h[k]!;
  return n;
}

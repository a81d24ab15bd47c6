// The CDP proxy's command filter on raw WebSocket bytes: other messages pass as the exact bytes that
// came, a download command is rewritten into the view even when split into fragments or into single
// bytes, and a refused one is answered to the client and never reaches the browser.
import { describe, expect, it } from 'vitest';
import { CommandFilter } from '../../src/service/host/session/cdp-command-filter.js';
import { OPCODE, WsFrameReader, encodeWsFrame, maskedIncludes } from '../../src/service/host/session/ws-frames.js';

const browserPath = (p: string) => `/data/sessions/s1${p}`;

function run(chunks: Buffer[]) {
  const toBrowser: Buffer[] = [];
  const toClient: Buffer[] = [];
  const filter = new CommandFilter(browserPath, (b) => toBrowser.push(b), (b) => toClient.push(b));
  for (const chunk of chunks) filter.push(chunk);
  const decode = (bufs: Buffer[]) => new WsFrameReader({ afterHttpHead: false }).push(Buffer.concat(bufs)).frames;
  return { toBrowser: Buffer.concat(toBrowser), browserFrames: decode(toBrowser), clientFrames: decode(toClient) };
}

/** A masked text message split into `parts` fragments, as a client may send it. */
function fragments(text: string, parts: number): Buffer[] {
  const bytes = Buffer.from(text);
  const size = Math.ceil(bytes.length / parts);
  const frames: Buffer[] = [];
  for (let i = 0; i < parts; i++) {
    const frame = encodeWsFrame(i === 0 ? OPCODE.text : OPCODE.continuation, bytes.subarray(i * size, (i + 1) * size), true);
    if (i < parts - 1) frame[0]! &= 0x7f; // not final
    frames.push(frame);
  }
  return frames;
}
const fragmented = (text: string, parts: number) => Buffer.concat(fragments(text, parts));

const command = (params: object) => JSON.stringify({ id: 7, method: 'Browser.setDownloadBehavior', params });

describe('searching a masked payload', () => {
  it('finds the needle at every offset and key, and only where the unmasked bytes hold it', () => {
    const needle = Buffer.from('DownloadBehavior');
    for (let trial = 0; trial < 200; trial++) {
      const key = Buffer.from([trial & 255, (trial * 7) & 255, (trial * 13 + 1) & 255, (trial * 31 + 5) & 255]);
      const mask = (b: Buffer) => Buffer.from(b.map((v, i) => v ^ key[i & 3]!));
      const at = trial % 37;
      const plain = Buffer.concat([Buffer.from('x'.repeat(at)), needle, Buffer.from('y'.repeat(trial % 5))]);
      expect(maskedIncludes(mask(plain), key, needle)).toBe(true);
      expect(maskedIncludes(mask(Buffer.from(`${'x'.repeat(at)}DownloadBehaviour`.replace('Behaviour', 'Behavio'))), key, needle)).toBe(false);
      // The needle's masked form at the wrong residue is no hit: mask it as if it started elsewhere.
      const shifted = Buffer.concat([Buffer.from('z'), needle.map((v, i) => v ^ key[i & 3]!)]);
      const unmaskedShifted = Buffer.from(shifted.map((v, i) => v ^ key[i & 3]!));
      expect(maskedIncludes(shifted, key, needle)).toBe(unmaskedShifted.includes(needle));
    }
  });
});

describe('the CDP command filter', () => {
  it('passes other messages on as the exact bytes that came', () => {
    const bytes = encodeWsFrame(OPCODE.text, Buffer.from(JSON.stringify({ id: 1, method: 'Page.navigate', params: { url: 'x' } })), true);
    expect(run([bytes]).toBrowser.equals(bytes)).toBe(true);
  });

  it('rewrites a download folder into the view, whole, fragmented, or fed a byte at a time', () => {
    const wire = fragmented(command({ behavior: 'allow', downloadPath: '/tmp/downloads/', eventsEnabled: true }), 3);
    for (const chunks of [[wire], [...wire].map((b) => Buffer.from([b]))]) {
      const { browserFrames } = run(chunks);
      expect(browserFrames).toHaveLength(1);
      expect(JSON.parse(browserFrames[0]!.payload().toString())).toEqual({
        id: 7,
        method: 'Browser.setDownloadBehavior',
        params: { behavior: 'allow', downloadPath: '/data/sessions/s1/tmp/downloads', eventsEnabled: true },
      });
    }
  });

  it('keeps allowAndName into the folder asked for, in the view, with the events that name its files', () => {
    const asked = (downloadPath: unknown) =>
      JSON.parse(run([encodeWsFrame(OPCODE.text, Buffer.from(command({ behavior: 'allowAndName', downloadPath })), true)]).browserFrames[0]!.payload().toString()).params;
    expect(asked('/tmp/playwright-artifacts-x')).toEqual({ behavior: 'allowAndName', downloadPath: '/data/sessions/s1/tmp/playwright-artifacts-x', eventsEnabled: true });
    // A client's own temp folder elsewhere (macOS's) is not refused: its connect would fail.
    expect(asked('/var/folders/xy/T/playwright-artifacts-x')).toEqual({ behavior: 'allowAndName', downloadPath: '/data/sessions/s1/tmp/downloads-by-guid', eventsEnabled: true });
  });

  it('answers a refused folder itself; a ping between fragments still goes through', () => {
    const [first, second] = fragments(command({ behavior: 'allow', downloadPath: '/home/kernel/../../etc' }), 2);
    const ping = encodeWsFrame(0x9, Buffer.from('p'), true);
    const { browserFrames, clientFrames } = run([first!, ping, second!]);
    expect(browserFrames.map((f) => f.opcode)).toEqual([0x9]);
    expect(JSON.parse(clientFrames[0]!.payload().toString())).toEqual({ id: 7, error: { code: -32602, message: expect.stringContaining('outside the browser host') } });
  });

  it('drops a connection that sends compressed frames, which it could not read', () => {
    const frame = encodeWsFrame(OPCODE.text, Buffer.from('x'), true);
    frame[0]! |= 0x40;
    expect(() => run([frame])).toThrow(/compressed/);
  });
});

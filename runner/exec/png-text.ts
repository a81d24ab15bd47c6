// A baseline says which browser build wrote it, in a PNG text chunk (`tEXt`, which viewers and Playwright's
// comparator ignore): a failure can then name the build behind the expected image even when the path
// template does not key baselines by build.
import { crc32 } from 'node:zlib';

const KEYWORD = 'bcs-browser-build';
const SIGNATURE = 8;

/** `png` with a text chunk `bcs-browser-build: <build>` before its end. */
export function withBuild(png: Buffer, build: string): Buffer {
  const iend = png.length - 12; // IEND is the last chunk: length, type, no data, CRC
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') return png;
  const data = Buffer.from(`${KEYWORD}\u0000${build}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([png.subarray(0, iend), chunk, png.subarray(iend)]);
}

/** The build a baseline says wrote it, if it says. */
export function buildOfPng(png: Buffer): string | undefined {
  for (let at = SIGNATURE; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const text = png.toString('latin1', at + 8, at + 8 + length);
      const nul = text.indexOf('\u0000');
      if (text.slice(0, nul) === KEYWORD) return text.slice(nul + 1);
    }
    if (type === 'IEND') return undefined;
    at += 12 + length;
  }
  return undefined;
}

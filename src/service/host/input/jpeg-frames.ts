// Splits a stream of concatenated JPEG images (ffmpeg's MJPEG on a pipe) into whole images. The end of an
// image is found by walking its segments, not by searching for the EOI bytes, which a quantization table
// may contain by chance; inside entropy-coded data a 0xFF byte is always stuffed (FF 00) or a restart
// marker (FF D0-D7), so the first other marker after the scan is the image's end.

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;

export class JpegSplitter {
  private pending: Buffer = Buffer.alloc(0);

  /** Feeds bytes; returns the images they complete, in order. */
  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const images: Buffer[] = [];
    for (;;) {
      const start = this.pending.indexOf(Buffer.from([0xff, SOI]));
      if (start < 0) {
        // Keep a trailing 0xFF: it may be the first half of the next SOI.
        this.pending = this.pending.subarray(this.pending.length && this.pending[this.pending.length - 1] === 0xff ? -1 : this.pending.length);
        return images;
      }
      const end = imageEnd(this.pending, start);
      if (end === undefined) {
        this.pending = this.pending.subarray(start);
        return images;
      }
      images.push(Buffer.from(this.pending.subarray(start, end)));
      this.pending = this.pending.subarray(end);
    }
  }
}

/** The offset just past the EOI of the image starting at `start`, or undefined while it is incomplete. */
function imageEnd(buf: Buffer, start: number): number | undefined {
  let i = start + 2;
  for (;;) {
    if (i + 2 > buf.length) return undefined;
    if (buf[i] !== 0xff) return i; // not a marker where one must be: give up on this image here
    const marker = buf[i + 1]!;
    if (marker === EOI) return i + 2;
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    if (i + 4 > buf.length) return undefined;
    const length = buf.readUInt16BE(i + 2);
    i += 2 + length;
    if (marker !== SOS) continue;
    // Entropy-coded data follows the scan header, up to the next marker that is not a restart.
    for (;;) {
      if (i + 1 >= buf.length) return undefined;
      if (buf[i] === 0xff && buf[i + 1] !== 0 && !(buf[i + 1]! >= 0xd0 && buf[i + 1]! <= 0xd7)) break;
      i += 1;
    }
  }
}

import { describe, expect, it } from 'vitest';
import { JpegSplitter } from '../../src/service/host/input/jpeg-frames.js';

/** A structurally valid JPEG: SOI, a DQT whose table holds the EOI bytes by chance, SOS, scan data, EOI. */
function jpeg(fill: number): Buffer {
  const dqt = Buffer.from([0xff, 0xdb, 0x00, 0x06, 0x00, 0xff, 0xd9, 0x01]);
  const sos = Buffer.from([0xff, 0xda, 0x00, 0x04, 0x01, 0x00]);
  // Scan data with a stuffed 0xFF and a restart marker, neither of which ends the image.
  const scan = Buffer.from([fill, 0xff, 0x00, fill, 0xff, 0xd3, fill]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), dqt, sos, scan, Buffer.from([0xff, 0xd9])]);
}

describe('JpegSplitter', () => {
  it('finds each whole image however the bytes are chunked', () => {
    const images = [jpeg(1), jpeg(2), jpeg(3)];
    const stream = Buffer.concat(images);
    for (let size = 1; size <= stream.length; size++) {
      const splitter = new JpegSplitter();
      const out: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) out.push(...splitter.push(stream.subarray(i, i + size)));
      expect(out, `chunks of ${size}`).toEqual(images);
    }
  });

  it('skips bytes before an image', () => {
    expect(new JpegSplitter().push(Buffer.concat([Buffer.from([1, 2, 0xff]), jpeg(7)]))).toEqual([jpeg(7)]);
  });
});

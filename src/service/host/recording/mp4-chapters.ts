// Markers as MP4 chapters (through an ffmetadata file given to the remux; their WebVTT track is a wire
// format, src/api/marker-track.ts), and the duration a finished MP4 declares (read from its moov/mvhd box,
// so no ffprobe is needed; the npm ffmpeg package ships without one).
import { open } from 'node:fs/promises';
import { markerSpans, type TrackMarker } from '../../../api/marker-track.js';

/** What the chapter before the first marker is called, when the first marker is not at 0. */
export const LEADING_CHAPTER = 'start';

/**
 * An ffmetadata document with one [CHAPTER] per marker, in milliseconds. MP4 chapter tracks start at 0
 * (a first chapter at 1.2 s reads back as 0), so a first marker after 0 gets a chapter before it.
 */
export function ffmetadata(markers: TrackMarker[], endMs: number): string {
  const lines = [';FFMETADATA1'];
  const chapters = markerSpans(markers, endMs);
  if (chapters.length && chapters[0]!.start > 0) chapters.unshift({ name: LEADING_CHAPTER, start: 0, end: chapters[0]!.start });
  for (const s of chapters) {
    lines.push('[CHAPTER]', 'TIMEBASE=1/1000', `START=${s.start}`, `END=${s.end}`, `title=${escapeMeta(s.name)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** ffmetadata gives `=`, `;`, `#`, `\` and newlines a meaning; a backslash makes them literal. */
function escapeMeta(text: string): string {
  return text.replace(/[=;#\\\n]/g, (c) => `\\${c}`);
}

/**
 * The duration in milliseconds that a finished MP4's movie header declares, or undefined when the file
 * has no usable moov (still fragmented, or not an MP4). Reads only box headers and the mvhd box.
 */
export async function mp4DurationMs(file: string): Promise<number | undefined> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const moov = await findBox(fh, 0, size, 'moov');
    if (!moov) return undefined;
    const mvhd = await findBox(fh, moov.body, moov.end, 'mvhd');
    if (!mvhd) return undefined;
    const buf = Buffer.alloc(32);
    await fh.read(buf, 0, 32, mvhd.body);
    const version = buf.readUInt8(0);
    // v0: version/flags, created, modified (4 bytes each), timescale, duration (4); v1: 8-byte times.
    const timescale = version === 1 ? buf.readUInt32BE(20) : buf.readUInt32BE(12);
    const duration = version === 1 ? Number(buf.readBigUInt64BE(24)) : buf.readUInt32BE(16);
    if (!timescale || !duration) return undefined;
    return Math.round((duration * 1000) / timescale);
  } finally {
    await fh.close();
  }
}

type FileHandle = Awaited<ReturnType<typeof open>>;

async function findBox(fh: FileHandle, start: number, end: number, type: string): Promise<{ body: number; end: number } | undefined> {
  const head = Buffer.alloc(16);
  for (let pos = start; pos + 8 <= end; ) {
    const { bytesRead } = await fh.read(head, 0, 16, pos);
    if (bytesRead < 8) return undefined;
    let size = head.readUInt32BE(0);
    let headerSize = 8;
    if (size === 1 && bytesRead >= 16) {
      size = Number(head.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) size = end - pos; // extends to the end of the file
    if (size < headerSize) return undefined;
    if (head.toString('latin1', 4, 8) === type) return { body: pos + headerSize, end: Math.min(end, pos + size) };
    pos += size;
  }
  return undefined;
}

// Markers in the forms players read: MP4 chapters (through an ffmetadata file given to the remux), a
// WebVTT track, and the duration a finished MP4 declares (read from its moov/mvhd box, so no ffprobe
// is needed; the npm ffmpeg package ships without one).
import { open } from 'node:fs/promises';

/** A named point on the video's timeline. */
export interface Marker {
  name: string;
  offset_ms: number;
}

/** Each marker spans from its offset to the next marker's, the last one to the end of the video. */
export function spans(markers: Marker[], endMs: number): Array<{ name: string; start: number; end: number }> {
  const sorted = [...markers].sort((a, b) => a.offset_ms - b.offset_ms);
  return sorted.map((m, i) => ({
    name: m.name,
    start: m.offset_ms,
    end: Math.max(m.offset_ms, i + 1 < sorted.length ? sorted[i + 1]!.offset_ms : endMs),
  }));
}

/** What the chapter before the first marker is called, when the first marker is not at 0. */
export const LEADING_CHAPTER = 'start';

/**
 * An ffmetadata document with one [CHAPTER] per marker, in milliseconds. MP4 chapter tracks start at 0
 * (a first chapter at 1.2 s reads back as 0), so a first marker after 0 gets a chapter before it.
 */
export function ffmetadata(markers: Marker[], endMs: number): string {
  const lines = [';FFMETADATA1'];
  const chapters = spans(markers, endMs);
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

/** A WebVTT document with one cue per marker, numbered in time order. */
export function webvtt(markers: Marker[], endMs: number): string {
  const cues = spans(markers, endMs).map((s, i) => `${i + 1}\n${vttTime(s.start)} --> ${vttTime(s.end)}\n${escapeVtt(s.name)}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}

function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

/** Cue text is HTML-like: `&` and `<` would start entities and tags, and `-->` would end the timing line. */
function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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

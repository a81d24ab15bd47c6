// What the replay tests share: whether ffmpeg and ffprobe are here, probing a downloaded MP4, and a
// page to record.
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findFfmpeg } from '../../src/service/host/recording/ffmpeg.js';
import type { TestService } from './service.js';

const run = promisify(execFile);

const ffmpeg = await findFfmpeg();
const ffprobe = await run('ffprobe', ['-version']).then(() => true, () => false);
/** Why the replay tests cannot run here, or undefined when they can. */
export const replaySkipReason = !ffmpeg.ffmpeg ? ffmpeg.reason : !ffprobe ? 'ffprobe (to check the videos) is not on PATH' : undefined;
if (replaySkipReason) console.warn(`skipping replay tests: ${replaySkipReason}`);

export interface Probe {
  duration_s: number;
  width: number;
  height: number;
  codec: string;
  chapters: Array<{ start_ms: number; end_ms: number; title: string }>;
}

/** ffprobe of a file: fails the test if the file is not a playable video. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_format', '-show_streams', '-show_chapters', '-of', 'json', file]);
  const info = JSON.parse(stdout) as {
    format: { duration: string };
    streams: Array<{ codec_type: string; codec_name: string; width: number; height: number }>;
    chapters: Array<{ start_time: string; end_time: string; tags?: { title?: string } }>;
  };
  const video = info.streams.find((s) => s.codec_type === 'video');
  if (!video) throw new Error(`${file} has no video stream`);
  return {
    duration_s: Number(info.format.duration),
    width: video.width,
    height: video.height,
    codec: video.codec_name,
    chapters: info.chapters.map((c) => ({
      start_ms: Math.round(Number(c.start_time) * 1000),
      end_ms: Math.round(Number(c.end_time) * 1000),
      title: c.tags?.title ?? '',
    })),
  };
}

/** Downloads a finished replay into `dir` and returns the file's path. */
export async function download(svc: TestService, browserId: string, replayId: string, dir: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/browsers/${browserId}/replays/${replayId}`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
  if (res.status !== 200) throw new Error(`download: ${res.status} ${await res.text()}`);
  if (res.headers.get('content-type') !== 'video/mp4') throw new Error(`download: content-type ${res.headers.get('content-type')}`);
  const file = join(dir, `${replayId}.mp4`);
  await writeFile(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

/** The pid of the ffmpeg recording `replayId`, found by the file it writes. */
export async function recorderPid(replayId: string): Promise<number | undefined> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(`${replayId}.rec.mp4`) && cmd.includes('ffmpeg')) return Number(pid);
  }
  return undefined;
}

/** The average colour of the frame `atS` seconds into the video (1x1 scale), as [r, g, b]. */
export async function colourAt(file: string, atS: number): Promise<number[]> {
  const { stdout } = await promisify(execFile)(
    'ffmpeg',
    ['-v', 'error', '-ss', String(atS), '-i', file, '-frames:v', '1', '-vf', 'scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { encoding: 'buffer' },
  );
  return [...stdout.subarray(0, 3)];
}

/** The colour of the video's very last frame (every frame of its last second is decoded; the last one kept). */
export async function lastColour(file: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)(
    'ffmpeg',
    ['-v', 'error', '-sseof', '-1', '-i', file, '-vf', 'scale=1:1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { encoding: 'buffer' },
  );
  return [...stdout.subarray(stdout.length - 3)];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A box moving every frame, so the screencast sends as many frames as Chromium paints. */
export const ANIMATED_PAGE = `data:text/html,${encodeURIComponent(`<!doctype html><title>anim</title><body style="margin:0">
<div id="b" style="position:absolute;top:100px;width:120px;height:120px;background:#c33"></div>
<script>let t = 0; (function f() { b.style.left = (t++ * 4) % 600 + 'px'; requestAnimationFrame(f); })();</script></body>`)}`;

export const STATIC_PAGE = `data:text/html,${encodeURIComponent('<!doctype html><title>static</title><h1>Nothing moves here</h1>')}`;

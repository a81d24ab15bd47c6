// Frames of a headful session: ffmpeg grabs the session's X display itself (x11grab), browser chrome
// and dialogs included, at a fraction of the CPU a screencast costs (no JPEG encode and decode per frame).
import { fragmentedH264Args } from './ffmpeg.js';

/** H.264 needs even dimensions: grab the largest even rectangle from the top-left corner. */
export function x11grabArgs(display: string, width: number, height: number, framerate: number, output: string): string[] {
  const w = width - (width % 2);
  const h = height - (height % 2);
  return [
    '-hide_banner', '-nostats', '-loglevel', 'info',
    '-f', 'x11grab', '-draw_mouse', '1', '-framerate', String(framerate), '-video_size', `${w}x${h}`, '-i', `${display}+0,0`,
    ...fragmentedH264Args(framerate, output),
  ];
}

/**
 * x11grab stamps frames with the wall clock in microseconds, and ffmpeg reports the first one as the
 * input's `start:`. The output starts at zero there, so that is the wall time of the video's t=0.
 */
export const X11_START = /Input #0, x11grab[^\n]*\n[^\n]*start: (\d+\.\d+)/;

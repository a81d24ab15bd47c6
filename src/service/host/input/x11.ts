// Input for headful sessions, truly OS-level on the session's X display: xdotool for mouse and keys
// (down/up rather than `click`, which adds ~100 ms), xclip for the clipboard, ffmpeg x11grab for
// screenshots of the whole screen, browser chrome and dialogs included.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import type { FrameOptions, FrameStream, InputDevice, MouseButton, Region } from './device.js';
import { JpegSplitter } from './jpeg-frames.js';
import { x11Keysym, type KeyDef } from './keysyms.js';
import { xEnv, type XDisplay } from '../browser/index.js';

const run = promisify(execFile);
const BUTTON_NUMBERS: Record<MouseButton, number> = { left: 1, middle: 2, right: 3, back: 8, forward: 9 };

export class X11InputDevice implements InputDevice {
  readonly kind = 'x11' as const;
  private cursorHidden = false;

  constructor(private readonly screen: XDisplay) {}

  private get env(): NodeJS.ProcessEnv {
    return { PATH: process.env.PATH, ...xEnv(this.screen) };
  }

  private async xdotool(...args: string[]): Promise<void> {
    await run('xdotool', args, { env: this.env });
  }

  screenSize(): { width: number; height: number } {
    return { width: this.screen.width, height: this.screen.height };
  }

  mouseMove(x: number, y: number): Promise<void> {
    return this.xdotool('mousemove', String(x), String(y));
  }

  mouseButton(kind: 'down' | 'up', x: number, y: number, button: MouseButton): Promise<void> {
    return this.xdotool('mousemove', String(x), String(y), kind === 'down' ? 'mousedown' : 'mouseup', String(BUTTON_NUMBERS[button]));
  }

  /** X11 wheels are buttons 4-7; one press and release per tick. */
  async wheel(_x: number, _y: number, deltaX: number, deltaY: number): Promise<void> {
    const button = deltaY > 0 ? 5 : deltaY < 0 ? 4 : deltaX > 0 ? 7 : 6;
    const ticks = Math.abs(deltaY || deltaX);
    const args: string[] = [];
    for (let i = 0; i < ticks; i++) args.push('mousedown', String(button), 'mouseup', String(button));
    if (args.length) await this.xdotool(...args);
  }

  key(kind: 'down' | 'up', def: KeyDef): Promise<void> {
    return this.xdotool(kind === 'down' ? 'keydown' : 'keyup', x11Keysym(def));
  }

  typeChar(def: KeyDef): Promise<void> {
    return this.xdotool('type', '--delay', '0', '--', def.text === '\r' ? '\n' : (def.text ?? def.key));
  }

  /** One xdotool call for the whole text: a process per character would cost ~3 ms each. */
  async typeText(text: string, delayMs: number, signal?: AbortSignal): Promise<void> {
    await run('xdotool', ['type', '--delay', String(delayMs), '--', text], { env: this.env, signal });
  }

  screenshot(region?: Region): Promise<Buffer> {
    const r = region ?? { x: 0, y: 0, ...this.screenSize() };
    return capture('ffmpeg', [
      '-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', this.cursorHidden ? '0' : '1',
      '-video_size', `${r.width}x${r.height}`, '-i', `${this.screen.display}+${r.x},${r.y}`,
      '-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe', '-',
    ], this.env);
  }

  /** The whole screen at a steady rate, as MJPEG from ffmpeg's x11grab, the cursor drawn unless hidden. */
  async streamFrames(onFrame: (jpeg: Buffer) => void, opts: FrameOptions): Promise<FrameStream> {
    const { width, height } = this.screenSize();
    // ffmpeg's MJPEG scale runs 2 (best) to 31.
    const q = Math.round(Math.min(31, Math.max(2, 31 - (opts.quality / 100) * 29)));
    const child = spawn('ffmpeg', [
      '-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', this.cursorHidden ? '0' : '1', '-framerate', String(opts.maxFps),
      '-video_size', `${width}x${height}`, '-i', this.screen.display,
      '-c:v', 'mjpeg', '-pix_fmt', 'yuvj420p', '-q:v', String(q), '-f', 'image2pipe', '-',
    ], { env: this.env, stdio: ['ignore', 'pipe', 'ignore'] });
    const splitter = new JpegSplitter();
    child.stdout.on('data', (chunk: Buffer) => {
      for (const image of splitter.push(chunk)) onFrame(image);
    });
    const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return {
      ended,
      stop: async () => {
        child.kill('SIGTERM');
        await ended;
      },
    };
  }

  /** Xvfb draws no cursor; hiding it means leaving it out of screenshots and recordings. */
  async setCursorHidden(hidden: boolean): Promise<void> {
    this.cursorHidden = hidden;
  }

  async readClipboard(): Promise<string> {
    try {
      return (await run('xclip', ['-selection', 'clipboard', '-o'], { env: this.env })).stdout;
    } catch {
      return ''; // nothing owns the clipboard yet
    }
  }

  writeClipboard(text: string): Promise<void> {
    // xclip stays running as the selection's owner until another program takes it or the display ends.
    return new Promise<void>((resolve, reject) => {
      const child = spawn('xclip', ['-selection', 'clipboard', '-i'], { env: this.env, stdio: ['pipe', 'ignore', 'pipe'] });
      child.once('error', reject);
      child.stdin.end(text);
      child.stdin.once('finish', () => resolve());
    }).then(() => this.untilClipboardIs(text));
  }

  /** xclip takes the selection a moment after reading its input; a read right after must see the text. */
  private async untilClipboardIs(text: string): Promise<void> {
    for (let i = 0; i < 50; i++) {
      if ((await this.readClipboard()) === text) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('xclip did not take the clipboard');
  }

  close(): void {}
}

function capture(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d) => (err += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${cmd} failed: ${err.trim()}`))));
  });
}

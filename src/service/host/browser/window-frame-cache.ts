// The window frame (chromium.ts measureWindowFrame) is a property of the executable, yet measuring it
// launches a browser: ~1 s of CPU at every start of the service, which every `bcs run` on the embedded
// service paid beside its first create. It is kept in the user's cache, keyed by the executable's path,
// size and modification time, so an upgraded browser is measured again.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface WindowFrame {
  width: number;
  height: number;
}

const FILE = 'window-frames.json';

/** `$XDG_CACHE_HOME/browser-scenarios`, else `~/.cache/browser-scenarios`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'browser-scenarios');
}

/**
 * The cached frame of `executable`, or `measure()`'s, which is then cached. A cache that cannot be read
 * or written only costs the measurement; a frame of 0x0 (maybe a window that never got its size) is not
 * kept, so the next start measures again.
 */
export async function cachedWindowFrame(executable: string, cacheDir: string, measure: () => Promise<WindowFrame>): Promise<WindowFrame> {
  const key = await executableKey(executable);
  const file = join(cacheDir, FILE);
  const cache = key ? await readCache(file) : {};
  const hit = key ? cache[key] : undefined;
  if (hit) return hit;
  const frame = await measure();
  if (key && (frame.width > 0 || frame.height > 0)) {
    // Read again just before writing: another service may have cached another executable meanwhile.
    await writeCache(file, { ...(await readCache(file)), [key]: frame }).catch(() => undefined);
  }
  return frame;
}

async function executableKey(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info ? `${path}|${info.size}|${Math.trunc(info.mtimeMs)}` : undefined;
}

async function readCache(file: string): Promise<Record<string, WindowFrame>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!parsed || typeof parsed !== 'object') return {};
    const frames: Record<string, WindowFrame> = {};
    for (const [key, value] of Object.entries(parsed)) {
      if (isFrame(value)) frames[key] = { width: value.width, height: value.height };
    }
    return frames;
  } catch {
    return {};
  }
}

function isFrame(value: unknown): value is WindowFrame {
  const v = value as WindowFrame;
  return !!v && Number.isInteger(v.width) && Number.isInteger(v.height) && v.width >= 0 && v.height >= 0 && v.width < 1000 && v.height < 1000;
}

/** Written whole and renamed into place, so a concurrent reader never sees half a file. */
async function writeCache(file: string, frames: Record<string, WindowFrame>): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(frames), { mode: 0o600 });
  await rename(tmp, file);
}

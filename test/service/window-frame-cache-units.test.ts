// The window frame is measured once per executable and kept in the user's cache between starts; the
// system Chromium is launched without its distribution's launcher script.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cachedWindowFrame, defaultCacheDir } from '../../src/service/host/browser/window-frame-cache.js';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';

let dir: string;
let exe: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bcs-frame-'));
  exe = join(dir, 'browser');
  await writeFile(exe, 'v1');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function counting(frame: { width: number; height: number }) {
  const measure = async () => {
    measure.calls++;
    return frame;
  };
  measure.calls = 0;
  return measure;
}

describe('the window frame cache', () => {
  it('measures an executable once, and again when it changes', async () => {
    const cache = join(dir, 'cache');
    const measure = counting({ width: 0, height: 87 });
    expect(await cachedWindowFrame(exe, cache, measure)).toEqual({ width: 0, height: 87 });
    expect(await cachedWindowFrame(exe, cache, measure)).toEqual({ width: 0, height: 87 });
    expect(measure.calls).toBe(1);
    // An upgrade replaces the file: another size or modification time is another executable.
    await writeFile(exe, 'version 2');
    await utimes(exe, new Date(2000, 0, 1), new Date(2000, 0, 1));
    await cachedWindowFrame(exe, cache, measure);
    expect(measure.calls).toBe(2);
    expect(Object.keys(JSON.parse(readFileSync(join(cache, 'window-frames.json'), 'utf8')))).toHaveLength(2);
  });

  it('keeps no empty frame, and measures past an unreadable cache', async () => {
    const cache = join(dir, 'cache');
    const empty = counting({ width: 0, height: 0 });
    await cachedWindowFrame(exe, cache, empty);
    await cachedWindowFrame(exe, cache, empty);
    expect(empty.calls).toBe(2);
    expect(existsSync(join(cache, 'window-frames.json'))).toBe(false);

    // A damaged cache is measured past and replaced.
    await mkdir(cache, { recursive: true });
    await writeFile(join(cache, 'window-frames.json'), '{not json');
    const measure = counting({ width: 2, height: 80 });
    expect(await cachedWindowFrame(exe, cache, measure)).toEqual({ width: 2, height: 80 });
    expect(await cachedWindowFrame(exe, cache, measure)).toEqual({ width: 2, height: 80 });
    expect(measure.calls).toBe(1);
    // A cache that cannot be written (its folder would be under a file) only costs the measurement.
    await writeFile(join(dir, 'a-file'), '');
    expect(await cachedWindowFrame(exe, join(dir, 'a-file', 'cache'), measure)).toEqual({ width: 2, height: 80 });
    expect(measure.calls).toBe(2);
  });

  it('lives in XDG_CACHE_HOME, else ~/.cache', () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/x/cache' })).toBe('/x/cache/browser-scenarios');
    expect(defaultCacheDir({})).toMatch(/\/\.cache\/browser-scenarios$/);
  });
});

describe('the system Chromium', () => {
  it('is a configured executable as given when it is no known launcher', async () => {
    const script = join(dir, 'my-browser');
    await writeFile(script, '#!/bin/sh\nexec /usr/lib/chromium/chromium "$@"\n');
    await chmod(script, 0o755);
    expect((await findChromium(script)).path).toBe(script);
  });

  const debian = existsSync('/usr/lib/chromium/chromium') && readFileSync('/usr/bin/chromium', 'latin1').startsWith('#!');
  it.skipIf(!debian)('is launched past Debian\'s launcher script, whichever way it was named', async () => {
    if (!debian) console.log('skipped: no Debian chromium package here (apt-get install chromium)');
    expect((await findChromium(undefined, { PATH: '/usr/bin' })).path).toBe('/usr/lib/chromium/chromium');
    expect((await findChromium('/usr/bin/chromium')).path).toBe('/usr/lib/chromium/chromium');
  });
});

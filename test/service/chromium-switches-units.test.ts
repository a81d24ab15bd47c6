// Chromium keeps only the last of a repeated switch (a second --enable-features silently drops the first's
// features), so the arguments a session's Chromium is launched with name each switch once.
import { describe, expect, it } from 'vitest';
import { chromiumArgs } from '../../src/service/host/browser/chromium.js';

describe("a session's Chromium switches", () => {
  it('gives no switch twice', () => {
    const exe = { path: '/usr/lib/chromium/chromium-headless-shell', source: 'system', headlessShell: true } as const;
    const args = chromiumArgs(exe, { userDataDir: '/tmp/x', headless: true, viewport: { width: 1280, height: 800 }, proxyServer: 'http://127.0.0.1:3128' });
    const names = args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});

// What an idle session's Chromium runs as processes. Where Chromium's own sandbox is off (a root service:
// bubblewrap is the boundary), the GPU process and the network service are merged into the browser process
// and the unsandboxed zygote is not started (chromium.ts): a third less memory per idle session. A Chromium
// that stopped honouring one of those switches would quietly take that memory back; this notices.
import { readFile, readdir, readlink } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs } from '../../src/service/host/browser/chromium.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc?.close());

/** Chromium processes below this process (the service runs in it), each by its --type (none: a browser). */
async function chromiumTypes(exePath: string): Promise<string[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const below = (pid: number) => {
    for (let p = parents.get(pid); p; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  const types: string[] = [];
  for (const pid of parents.keys()) {
    if (!below(pid) || (await readlink(`/proc/${pid}/exe`).catch(() => '')) !== exePath) continue;
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ');
    const type = /--type=(\S+)/.exec(cmdline)?.[1] ?? 'browser';
    types.push(type === 'utility' ? `utility ${/--utility-sub-type=(\S+)/.exec(cmdline)?.[1] ?? '?'}` : type);
  }
  return types.sort();
}

describe("an idle session's Chromium processes", () => {
  it('gives no switch twice: Chromium keeps only the last of a repeated one', () => {
    const exe = { path: '/usr/lib/chromium/chromium-headless-shell', source: 'system', headlessShell: true } as const;
    const args = chromiumArgs(exe, { userDataDir: '/tmp/x', headless: true, viewport: { width: 1280, height: 800 }, proxyServer: 'http://127.0.0.1:3128' });
    const names = args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // The merge gives up only boundaries that --no-sandbox has already removed.
    expect(args.includes('--in-process-gpu')).toBe(args.includes('--no-sandbox'));
  });

  // Not as root, Chromium's own sandbox is on and its helpers stay processes of their own.
  it.skipIf(process.getuid?.() !== 0)('runs the browser, one zygote and its renderers, without a GPU process or a network service of its own', async () => {
    const exePath = svc.headlessShell?.path ?? svc.chromium.path;
    const created = await svc.call('POST', '/browsers', { body: { headless: true } });
    expect(created.status).toBe(200);
    try {
      const types = await eventually(async () => {
        const found = await chromiumTypes(exePath);
        return found.includes('renderer') ? found : undefined;
      });
      expect(types.filter((t) => t !== 'renderer')).toEqual(['browser', 'zygote']);
    } finally {
      await svc.call('DELETE', `/browsers/${created.body.session_id}`);
    }
  });
});

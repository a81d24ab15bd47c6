// The bubblewrap sandbox, seen from inside: what a process can see, read and write, and what dies
// with it (skipped, with the reason printed, where bwrap is missing or does not work); and the service
// with the sandbox turned off, where processes run on the host with the view folders mapped in.
import { mkdtemp, readdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src/service/host/process/sandbox.js';
import { SESSION_UID_BASE } from '../../src/service/host/process/session-users.js';
import { eventually, isAlive, startTestService, type TestService } from '../helpers/service.js';

const probeDir = await mkdtemp(join(tmpdir(), 'bcs-sandbox-probe-'));
const detection = await detectSandbox({ dataDir: probeDir });
await rm(probeDir, { recursive: true, force: true });
const turnedOff = process.env.BCS_SANDBOX === 'off';
const noSandbox = detection.sandbox === null || turnedOff;
if (noSandbox) console.warn(`sandbox tests skipped: ${turnedOff ? 'BCS_SANDBOX=off' : detection.reason}`);
const asRoot = process.getuid?.() === 0;

const unb64 = (s: string) => Buffer.from(s, 'base64').toString();

/** Exec through the API; fails the test unless it answers 200. Output comes decoded. */
async function execOn(svc: TestService, sessionId: string, body: object) {
  const res = await svc.call('POST', `/browsers/${sessionId}/process/exec`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...res.body, stdout: unb64(res.body.stdout_b64), stderr: unb64(res.body.stderr_b64) } as {
    exit_code: number;
    stdout: string;
    stderr: string;
    timed_out: boolean;
  };
}

/** Host processes whose arguments include `needle` exactly. */
async function hostProcesses(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

describe('sandbox detection', () => {
  it('reports no sandbox, with the reason, when bwrap is missing or broken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bcs-sandbox-detect-'));
    try {
      const missing = await detectSandbox({ dataDir: dir, bwrap: '/nonexistent/bwrap' });
      expect(missing.sandbox).toBeNull();
      expect(missing.reason).toMatch(/does not work/);
      const broken = await detectSandbox({ dataDir: dir, bwrap: '/bin/false' });
      expect(broken.sandbox).toBeNull();
      expect(broken.reason).toMatch(/does not work/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(noSandbox)('the bwrap sandbox', () => {
  let svc: TestService;
  let sessionId: string;

  const exec = (body: object, id = sessionId) => execOn(svc, id, body);
  const sh = (script: string, extra: object = {}, id = sessionId) => exec({ command: 'sh', args: ['-c', script], ...extra }, id);

  beforeAll(async () => {
    svc = await startTestService();
    sessionId = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
  });
  afterAll(async () => {
    await svc.close();
  });

  it('is what the service uses', () => {
    expect(svc.sandbox?.kind).toBe('bwrap');
  });

  it('shows the system and the session’s folders, nothing else of the host', async () => {
    const other = (await svc.call('POST', '/browsers', { body: {} })).body.session_id;
    const otherView = svc.sessions.get(other)!.view.root;
    const hidden = ['/root', '/work', svc.dataDir, otherView, '/var/lib', '/var/log', '/opt', '/srv', '/mnt', '/run', '/sys'];
    for (const identity of [{}, { as_root: true }]) {
      const r = await sh(`ls -A /; for p in ${hidden.join(' ')}; do test -e "$p" && echo "VISIBLE $p"; done; true`, identity);
      expect(r.stdout.split('\n').filter((l) => l && !l.startsWith('VISIBLE')).sort()).toEqual(
        expect.arrayContaining(['dev', 'etc', 'home', 'proc', 'tmp', 'usr']),
      );
      expect(r.stdout).not.toContain('VISIBLE');
    }
    expect((await sh('ls -A /home')).stdout).toBe('kernel\n');
    // Of /var, only the system's font cache is there (read-only), so programs need not rebuild it.
    expect((await sh('ls -A /var; ls -A /var/cache')).stdout).toBe('cache\nfontconfig\n');
    // Another session's files are not this one's /tmp.
    await sh('echo secret > /tmp/other-secret', {}, other);
    expect((await sh('cat /tmp/other-secret')).exit_code).not.toBe(0);
    await svc.call('DELETE', `/browsers/${other}`);
  });

  it('has its own /proc: only the sandbox’s processes, no Chromium, no service', async () => {
    const chromiumPid = svc.sessions.get(sessionId)!.chromium.pid;
    const r = await sh(`ls /proc | grep -E '^[0-9]+$' | wc -l; test -e /proc/${chromiumPid} && echo SEES-CHROMIUM; test -e /proc/${process.pid} && echo SEES-SERVICE; cat /proc/1/comm`);
    const [count, ...rest] = r.stdout.trim().split('\n');
    expect(Number(count)).toBeLessThanOrEqual(6);
    expect(r.stdout).not.toContain('SEES-');
    expect(rest.at(-1)).toBe('bwrap');
  });

  it('hides /etc/shadow and every other root-only file in /etc, even from root', async () => {
    for (const identity of [{}, { as_root: true }]) {
      const r = await sh('cat /etc/shadow /etc/gshadow 2>&1 | wc -c; grep -c "^root:" /etc/passwd', identity);
      expect(r.stdout).toBe('0\n1\n');
    }
    const rootOnly = await sh('find /etc ! -perm -o=r -type f 2>/dev/null | while read f; do test -s "$f" && echo "$f"; done; true', { as_root: true });
    expect(rootOnly.stdout).toBe('');
  });

  it('writes to /home/kernel and /tmp land in the session’s view folder', async () => {
    await sh('echo home-file > /home/kernel/probe.txt && echo tmp-file > /tmp/probe.txt && mkdir -p /home/kernel/Downloads/sub');
    const view = svc.sessions.get(sessionId)!.view;
    expect(await readFile(join(view.root, 'home/kernel/probe.txt'), 'utf8')).toBe('home-file\n');
    expect(await readFile(join(view.root, 'tmp/probe.txt'), 'utf8')).toBe('tmp-file\n');
  });

  it('follows symlinks a process planted as the sandbox does, without probing the host behind them', async () => {
    await sh('ln -sfn /usr/bin /home/kernel/ub; ln -sfn /root /home/kernel/escape');
    expect((await exec({ command: 'ls', cwd: '/home/kernel/ub' })).stdout).toContain('env\n');
    expect((await exec({ command: './env', cwd: '/home/kernel/ub' })).exit_code).toBe(0);
    // The service does not stat /root for the caller: the sandbox answers, and it has no /root.
    const escaped = await exec({ command: 'pwd', cwd: '/home/kernel/escape' });
    expect(escaped.exit_code).not.toBe(0);
    expect(escaped.stderr).toMatch(/chdir/i);
  });

  it('the system is read-only, for root too', async () => {
    for (const identity of [{}, { as_root: true }]) {
      for (const target of ['/usr/probe', '/etc/probe', '/probe']) {
        const r = await sh(`touch ${target}`, identity);
        expect(r.exit_code, `${target} ${JSON.stringify(identity)}`).not.toBe(0);
      }
      const usr = await sh('touch /usr/probe', identity);
      expect(usr.stderr).toMatch(/Read-only file system|Permission denied/);
    }
  });

  it.skipIf(!asRoot)('runs as kernel by default; root inside has only a few capabilities and no host-wide knobs', async () => {
    expect((await sh('id -un; id -u')).stdout).toMatch(/^kernel\n[1-9]\d*\n$/);
    expect((await sh('grep CapEff /proc/self/status')).stdout).toMatch(/CapEff:\s+0+\n/);
    const root = await sh('grep CapEff /proc/self/status', { as_root: true });
    const caps = BigInt(`0x${/CapEff:\s+([0-9a-f]+)/.exec(root.stdout)![1]}`);
    const CAP_SYS_ADMIN = 21n;
    const CAP_SYS_PTRACE = 19n;
    const CAP_NET_ADMIN = 12n;
    const CAP_MKNOD = 27n;
    for (const cap of [CAP_SYS_ADMIN, CAP_SYS_PTRACE, CAP_NET_ADMIN, CAP_MKNOD]) expect((caps >> cap) & 1n).toBe(0n);
    const sysctl = await sh('echo 1 > /proc/sys/kernel/printk_ratelimit', { as_root: true });
    expect(sysctl.exit_code).not.toBe(0);
    expect(sysctl.stderr).toMatch(/Read-only file system/);
    expect((await sh('mount -t tmpfs none /tmp', { as_root: true })).exit_code).not.toBe(0);
  });

  it('a timeout kills even children that left the process group', async () => {
    const r = await sh('setsid sleep 66.1 & sleep 66.2', { timeout_sec: 1 });
    expect(r).toMatchObject({ exit_code: 124, timed_out: true });
    await eventually(async () => ((await hostProcesses('66.1')).length + (await hostProcesses('66.2')).length === 0 ? true : undefined), 30_000);
  });

  it('when a process exits, what it left running in its sandbox dies with it', async () => {
    expect((await sh('(setsid sleep 65.1 &); echo started')).stdout).toBe('started\n');
    await eventually(async () => ((await hostProcesses('65.1')).length === 0 ? true : undefined), 30_000);
  });

  it('deleting the session kills daemonized processes too', async () => {
    const id = (await svc.call('POST', '/browsers', { body: {} })).body.session_id;
    const res = await svc.call('POST', `/browsers/${id}/process/spawn`, {
      body: { command: 'sh', args: ['-c', '(setsid sleep 67.1 &); sleep 67.2'] },
    });
    expect(res.status).toBe(200);
    await eventually(async () => ((await hostProcesses('67.1')).length && (await hostProcesses('67.2')).length ? true : undefined), 30_000, 50);
    await svc.call('DELETE', `/browsers/${id}`);
    expect([...(await hostProcesses('67.1')), ...(await hostProcesses('67.2'))]).toEqual([]);
  });
});

describe.skipIf(noSandbox)('the packaged headless shell', () => {
  let svc: TestService;

  beforeAll(async () => {
    const { default: packaged } = await import('@sparticuz/chromium');
    svc = await startTestService({ chromium: await packaged.executablePath(), standby: 0 });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('runs inside the sandbox too (as kernel under a root service), and renders and downloads there', async () => {
    expect(svc.chromium.headlessShell).toBe(true);
    const created = await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.session_id as string;
    expect(created.body.sandboxed).toBe(true);
    const ownMounts = await readlink('/proc/self/ns/mnt');
    const browser = [];
    for (const pid of await descendants(svc.sessions.get(id)!.chromium.pid)) {
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (/bwrap$/.test(cmdline[0]!) || !cmdline.includes('--user-data-dir=/home/kernel/user-data')) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      browser.push({ cmdline, uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]), mounts: await readlink(`/proc/${pid}/ns/mnt`).catch(() => ownMounts) });
    }
    expect(browser.length).toBeGreaterThan(0);
    for (const p of browser) {
      expect(p.cmdline[0]).toBe('/opt/bcs-browser/chromium');
      expect(p.mounts).not.toBe(ownMounts);
      if (asRoot) expect(p.uid).not.toBe(0);
    }
    const pw = await svc.call('POST', `/browsers/${id}/playwright/execute`, {
      body: {
        code: `await page.setContent('<h1>shell</h1><a download="note.txt" href="data:text/plain,inside">get</a>');
               const [download] = await Promise.all([page.waitForEvent('download'), page.click('a')]);
               await download.path();
               return [await page.textContent('h1'), (await page.screenshot()).length > 1000];`,
      },
    });
    expect(pw.body, JSON.stringify(pw.body)).toMatchObject({ success: true, result: ['shell', true] });
    const shot = await svc.call('POST', `/browsers/${id}/computer/screenshot`, { body: {} });
    expect(shot.status).toBe(200);
  });
});

/** Every process below `root`. */
async function descendants(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(/\) \S+ (\d+)/.exec(await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => ''))?.[1]);
    if (ppid) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return [root, ...out];
}

describe('without the sandbox', () => {
  let svc: TestService;
  let sessionId: string;
  const run = (body: object) => execOn(svc, sessionId, body);

  beforeAll(async () => {
    process.env.BCS_SANDBOX_TEST_SECRET = 'must-not-leak';
    svc = await startTestService({ sandbox: 'off' });
    sessionId = (await svc.call('POST', '/browsers', { body: {} })).body.session_id;
  });
  afterAll(async () => {
    delete process.env.BCS_SANDBOX_TEST_SECRET;
    await svc.close();
  });

  it('maps cwd, HOME and TMPDIR to the session’s view folder, and keeps the service env out', async () => {
    expect(svc.sandbox).toBeNull();
    const view = svc.sessions.get(sessionId)!.view;
    const r = await run({ command: 'sh', args: ['-c', 'pwd; echo "$HOME"; echo "$TMPDIR"; env'] });
    const [pwd, homeEnv, tmpEnv] = r.stdout.split('\n');
    expect(pwd).toBe(await realpath(view.hostPath('/home/kernel')));
    expect(homeEnv).toBe(view.hostPath('/home/kernel'));
    expect(tmpEnv).toBe(view.hostPath('/tmp'));
    expect(r.stdout).not.toContain('BCS_SANDBOX_TEST_SECRET');
    expect((await run({ command: 'pwd', cwd: '/tmp' })).stdout.trim()).toBe(await realpath(view.hostPath('/tmp')));
    await run({ command: 'sh', args: ['-c', 'echo here > note.txt'] });
    expect(await readFile(view.hostPath('/home/kernel/note.txt'), 'utf8')).toBe('here\n');
    // Outside the view there is nothing to map to.
    const outside = await svc.call('POST', `/browsers/${sessionId}/process/exec`, { body: { command: 'pwd', cwd: '/usr' } });
    expect(outside.status).toBe(400);
    expect(outside.body.details[0].field).toBe('body.cwd');
  });

  it('runs as the session’s own user under a root service (else as the service’s), and a timeout kills the process group', async () => {
    const uid = Number((await run({ command: 'id', args: ['-u'] })).stdout);
    if (asRoot) {
      // isolation.test.ts covers what that keeps out of reach; here: its groups, and what it may not ask.
      expect(uid).toBeGreaterThanOrEqual(SESSION_UID_BASE);
      expect((await run({ command: 'id', args: ['-G'] })).stdout.trim().split(' ')).toEqual([String(uid)]);
      expect((await svc.call('POST', `/browsers/${sessionId}/process/exec`, { body: { command: 'id', as_root: true } })).status).toBe(403);
      expect((await run({ command: 'id', args: ['-u'], as_user: 'kernel' })).stdout).toBe(`${uid}\n`);
    } else {
      expect(uid).toBe(process.getuid!());
    }
    const r = await run({ command: 'sh', args: ['-c', 'sleep 79.1 & sleep 79.2'], timeout_sec: 1 });
    expect(r).toMatchObject({ exit_code: 124, timed_out: true });
    await eventually(async () => ((await hostProcesses('79.1')).length + (await hostProcesses('79.2')).length === 0 ? true : undefined), 30_000);
  });

  it('PTY processes work unsandboxed too (tty is /dev/pts/N), and die with the session', async () => {
    const res = await svc.call('POST', `/browsers/${sessionId}/process/spawn`, {
      body: { command: 'sh', args: ['-c', 'tty; id -G; sleep 89.1'], allocate_tty: true },
    });
    expect(res.status).toBe(200);
    const stream = await fetch(`${svc.baseUrl}/browsers/${sessionId}/process/${res.body.process_id}/stdout/stream`, {
      headers: { authorization: `Bearer ${svc.apiKey}` },
    });
    await eventually(async () => ((await hostProcesses('89.1')).length ? true : undefined), 30_000, 50);
    await svc.call('DELETE', `/browsers/${sessionId}`);
    expect(await hostProcesses('89.1')).toEqual([]);
    expect(isAlive(res.body.pid)).toBe(false);
    // The stream ends with the process: its frames are all there.
    const events = (await stream.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { data_b64?: string; event?: string });
    const text = events.map((e) => (e.data_b64 ? unb64(e.data_b64) : '')).join('');
    expect(text).toMatch(/^\/dev\/pts\/\d+\r\n/);
    // Switching users leaves none of root's groups behind, on a PTY as on pipes.
    if (asRoot) expect(text.split('\r\n')[1]!.split(' ')).not.toContain('0');
    expect(events.at(-1)?.event).toBe('exit');
  });
});

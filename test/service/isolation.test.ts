// What a session's own code can reach of the host when the service runs as root, sandboxed and not:
// nothing of the service's state (database, WAL, key file, data dir listing), nothing of another session,
// nothing only root may read; and nothing of the session runs as root (its processes, its Chromium, its
// Playwright worker) unless a sandboxed process asks for the sandbox's capability-limited root.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeIsolation } from '../../src/service/host/process/isolation.js';
import { detectSandbox } from '../../src/service/host/process/sandbox.js';
import { SESSION_UID_BASE, SESSION_UID_COUNT, SessionUsers, processesOf } from '../../src/service/host/process/session-users.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const asRoot = process.getuid?.() === 0;
const probeDir = await mkdtemp(join(tmpdir(), 'bcs-isolation-probe-'));
const detection = await detectSandbox({ dataDir: probeDir });
await rm(probeDir, { recursive: true, force: true });
if (!asRoot) console.warn('isolation tests skipped: the service does not run as root here, so it cannot give sessions other users');
if (asRoot && !detection.sandbox) console.warn(`sandboxed isolation tests skipped: ${detection.reason}`);

const unb64 = (s: string) => Buffer.from(s, 'base64').toString();

/** Host processes below `root` (itself included), with their uids and command lines. */
async function processTree(root: number): Promise<Array<{ pid: number; uids: number[]; cmdline: string[] }>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(/\) \S+ (\d+)/.exec(stat)?.[1]);
    if (ppid) parents.set(Number(entry), ppid);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p && hops < 64; p = parents.get(p), hops++) if (p === root) return true;
    return false;
  };
  const out: Array<{ pid: number; uids: number[]; cmdline: string[] }> = [];
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status)?.slice(1).map(Number);
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (uids) out.push({ pid, uids, cmdline });
  }
  return out;
}

const modes = [
  { name: 'sandboxed', opts: {}, skip: !asRoot || !detection.sandbox },
  { name: 'unsandboxed', opts: { sandbox: 'off' as const }, skip: !asRoot },
];

for (const mode of modes) {
  describe.skipIf(mode.skip)(`a session's code, ${mode.name}, under a root service`, () => {
    let svc: TestService;
    let a: string;
    let b: string;

    const exec = async (id: string, body: object) => {
      const res = await svc.call('POST', `/browsers/${id}/process/exec`, { body });
      return res;
    };
    const sh = async (id: string, script: string, extra: object = {}) => {
      const res = await exec(id, { command: 'sh', args: ['-c', script], ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { exit_code: res.body.exit_code as number, stdout: unb64(res.body.stdout_b64), stderr: unb64(res.body.stderr_b64) };
    };

    beforeAll(async () => {
      svc = await startTestService({ ...mode.opts, standby: 0, store: 'sqlite' });
      expect(svc.sandbox === null).toBe(mode.name === 'unsandboxed');
      a = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
      b = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
      // A proxy with a password makes the service create its key file.
      const proxy = await svc.call('POST', '/proxies', { body: { type: 'custom', config: { host: '127.0.0.1', port: 9, username: 'user', password: 'secret-pass' } } });
      expect(proxy.status, JSON.stringify(proxy.body)).toBe(200);
    });
    afterAll(async () => {
      await svc?.close();
    });

    it('keeps the data dir, database, WAL and key file private; only the way to the view is open', async () => {
      const mode = async (p: string) => (await stat(p)).mode & 0o7777;
      expect(await mode(svc.dataDir)).toBe(0o711);
      expect(await mode(join(svc.dataDir, 'sessions'))).toBe(0o711);
      for (const file of ['service.db', 'service.db-wal', 'service.db-shm', 'secrets.key']) {
        expect(await mode(join(svc.dataDir, file)), file).toBe(0o600);
      }
      for (const dir of ['sandbox', 'profiles', 'extensions', 'replays']) expect(await mode(join(svc.dataDir, dir)), dir).toBe(0o700);
    });

    it('cannot read the service’s state, another session, /etc/shadow or the service’s environment', async () => {
      await sh(b, 'echo other-session-secret > /home/kernel/secret.txt; echo tmp-secret > /tmp/secret.txt');
      const bView = svc.sessions.get(b)!.view;
      const targets = [
        join(svc.dataDir, 'service.db'),
        join(svc.dataDir, 'service.db-wal'),
        join(svc.dataDir, 'secrets.key'),
        bView.hostPath('/home/kernel/secret.txt'),
        bView.hostPath('/tmp/secret.txt'),
        '/etc/shadow',
        // Its command line stays world-readable unsandboxed (/proc shows every process's): no secret may be there.
        `/proc/${process.pid}/environ`,
      ];
      for (const target of targets) {
        const r = await sh(a, `cat '${target}'`);
        expect(r.stdout, target).toBe('');
        // The sandbox covers /etc/shadow with an empty file; everything else is not there, or not readable.
        if (!(target === '/etc/shadow' && svc.sandbox)) expect(r.exit_code, target).not.toBe(0);
      }
      for (const dir of [svc.dataDir, join(svc.dataDir, 'sessions'), bView.root, bView.hostPath('/home/kernel'), bView.hostPath('/tmp')]) {
        const r = await sh(a, `ls -A '${dir}'`);
        expect(r.exit_code, `ls ${dir}: ${r.stdout}`).not.toBe(0);
      }
      // The Playwright worker cannot either.
      const pw = await svc.call('POST', `/browsers/${a}/playwright/execute`, {
        body: { code: `const fs = await import('node:fs'); return [process.getuid(), ...${JSON.stringify(targets.slice(0, 4))}.map((p) => { try { fs.readFileSync(p); return 'READ ' + p; } catch (e) { return e.code; } })]` },
      });
      if (pw.status === 503 && pw.body.code === 'playwright_unavailable') {
        console.warn(`Playwright part skipped: ${pw.body.message}`);
        return;
      }
      expect(pw.status, JSON.stringify(pw.body)).toBe(200);
      expect(pw.body.success, JSON.stringify(pw.body)).toBe(true);
      const [uid, ...reads] = pw.body.result as [number, ...string[]];
      expect(uid).not.toBe(0);
      for (const r of reads) expect(r).not.toMatch(/^READ/);
    });

    it('runs processes as an unprivileged user, one per session when unsandboxed', async () => {
      const uidA = Number((await sh(a, 'id -u')).stdout);
      const uidB = Number((await sh(b, 'id -u')).stdout);
      expect(uidA).not.toBe(0);
      if (mode.name === 'unsandboxed') {
        for (const uid of [uidA, uidB]) expect(uid >= SESSION_UID_BASE && uid < SESSION_UID_BASE + SESSION_UID_COUNT).toBe(true);
        expect(uidA).not.toBe(uidB);
        // Its view is its own.
        const home = await stat(svc.sessions.get(a)!.view.hostPath('/home/kernel'));
        expect([home.uid, home.mode & 0o777]).toEqual([uidA, 0o700]);
        // Nothing it runs can gain privileges: no groups, no_new_privs (setuid binaries stay unprivileged).
        expect((await sh(a, 'id -G; grep NoNewPrivs /proc/self/status')).stdout).toMatch(new RegExp(`^${uidA}\\nNoNewPrivs:\\s+1\\n$`));
        // It cannot signal the other session's processes.
        const bChromium = svc.sessions.get(b)!.chromium.pid;
        expect((await sh(a, `kill -0 ${bChromium}`)).exit_code).not.toBe(0);
        expect((await sh(a, `kill -0 ${process.pid}`)).exit_code).not.toBe(0);
      } else {
        expect((await sh(a, 'id -un')).stdout).toBe('kernel\n');
      }
    });

    it('runs Chromium and all its helpers as that unprivileged user', async () => {
      for (const id of [a, b]) {
        const session = svc.sessions.get(id)!;
        const tree = await processTree(session.chromium.pid);
        // Sandboxed, bwrap itself stays root outside (it only sets up and waits); Chromium is in there.
        const chromium = tree.filter((p) => !/bwrap$/.test(p.cmdline[0]!) && p.cmdline.some((arg) => arg.startsWith('--user-data-dir=')));
        expect(chromium.length, JSON.stringify(tree)).toBeGreaterThan(0);
        for (const p of chromium) expect(p.uids, p.cmdline.join(' ')).not.toContain(0);
        for (const p of chromium) expect(await readFile(`/proc/${p.pid}/status`, 'utf8').catch(() => 'NoNewPrivs:\t1')).toMatch(/NoNewPrivs:\s+1/);
        if (mode.name === 'unsandboxed') {
          expect(chromium.every((p) => p.cmdline.includes(`--user-data-dir=${session.view.hostPath('/home/kernel/user-data')}`))).toBe(true);
        }
      }
    });

    it.runIf(mode.name === 'unsandboxed')('refuses as_root and other users without the sandbox, with a 403 that says why', async () => {
      const root = await exec(a, { command: 'id', as_root: true });
      expect(root.status).toBe(403);
      expect(root.body.message).toMatch(/never run as root/);
      const other = await exec(a, { command: 'id', as_user: 'daemon' });
      expect(other.status).toBe(403);
      expect(other.body.message).toMatch(/only as the session's own user/);
      expect((await exec(a, { command: 'id', args: ['-u'], as_user: 'kernel' })).status).toBe(200);
    });

    it.runIf(mode.name === 'unsandboxed')('ending a session leaves nothing running as its uid', async () => {
      const id = (await svc.call('POST', '/browsers', { body: {} })).body.session_id;
      const uid = Number((await sh(id, 'id -u')).stdout);
      const spawned = await svc.call('POST', `/browsers/${id}/process/spawn`, { body: { command: 'sh', args: ['-c', '(setsid sleep 93.1 &); sleep 93.2'] } });
      expect(spawned.status).toBe(200);
      await eventually(async () => ((await processesOf(uid)).length >= 3 ? true : undefined), 30_000, 50);
      expect((await svc.call('DELETE', `/browsers/${id}`)).status).toBe(204);
      await eventually(async () => ((await processesOf(uid)).length === 0 ? true : undefined), 30_000, 50);
    });
  });
}

describe.skipIf(!asRoot)('session uids', () => {
  it('a uid whose service died is freed, with what still ran as it, before new ones are handed out', async () => {
    const lockDir = await mkdtemp(join(tmpdir(), 'bcs-uid-locks-'));
    try {
      // A range of its own, far from what the running services hand out.
      await writeFile(join(lockDir, 'next'), String(SESSION_UID_COUNT - 500));
      const staleUid = SESSION_UID_BASE + SESSION_UID_COUNT - 1 - Math.floor(Math.random() * 400);
      const dead = spawn('true');
      await new Promise((r) => dead.once('exit', r));
      await writeFile(join(lockDir, String(staleUid)), `${dead.pid} /gone\n`);
      const survivor = spawn('sleep', ['94.1'], { uid: staleUid, gid: staleUid, stdio: 'ignore' });
      const exited = new Promise((r) => survivor.once('exit', r));
      expect(await processesOf(staleUid)).toEqual([survivor.pid]);
      const users = new SessionUsers(lockDir);
      const given = await users.allocate('/some/session');
      expect(given.uid).toBe(SESSION_UID_BASE + SESSION_UID_COUNT - 500);
      expect(given.uid).not.toBe(staleUid);
      await exited;
      expect(await processesOf(staleUid)).toEqual([]);
      expect(await readdir(lockDir)).not.toContain(String(staleUid));
      // A second allocator (another service) never gets a uid that is taken.
      const other = new SessionUsers(lockDir);
      expect((await other.allocate('/other/session')).uid).not.toBe(given.uid);
      await users.release('/some/session');
      expect(await readdir(lockDir)).not.toContain(String(given.uid));
      // Recovery removing a dead service's session folder frees that session's uid at once.
      const leftUid = staleUid - 1;
      await writeFile(join(lockDir, String(leftUid)), `${dead.pid} /dead/service/session\n`);
      const left = spawn('sleep', ['94.2'], { uid: leftUid, gid: leftUid, stdio: 'ignore' });
      const leftExited = new Promise((r) => left.once('exit', r));
      await new SessionUsers(lockDir).release('/dead/service/session');
      await leftExited;
      expect(await readdir(lockDir)).not.toContain(String(leftUid));
    } finally {
      await rm(lockDir, { recursive: true, force: true });
    }
  });
});

describe('the isolation summary', () => {
  it('says which mode holds, and never more', () => {
    const kernel = { name: 'kernel', uid: 65534, gid: 65534 };
    const sandbox = { kind: 'bwrap' as const, bwrapPath: '/usr/bin/bwrap', setprivPath: '/usr/bin/setpriv', systemArgs: [], kernel, network: null, networkReason: 'turned off' };
    expect(describeIsolation({ ...sandbox, privileged: true }, 'bwrap at /usr/bin/bwrap', 0)).toMatch(/^sandboxed .*'kernel' \(uid 65534\)/);
    expect(describeIsolation({ ...sandbox, privileged: false }, 'bwrap at /usr/bin/bwrap', 1000)).toMatch(/^sandboxed .*service's own user/);
    expect(describeIsolation(null, 'turned off', 0)).toMatch(/^unsandboxed \(turned off\): each session runs as a uid of its own/);
    expect(describeIsolation(null, 'bwrap (bubblewrap) is not installed', 1000)).toMatch(/^unsandboxed .*can read and change whatever it can/);
  });
});

describe('an existing data dir', () => {
  it('is tightened at start: the database from an older run becomes 0600, files that are not the service’s stay as they are', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-old-data-'));
    await chmod(dataDir, 0o755);
    await writeFile(join(dataDir, 'service.db'), '', { mode: 0o644 });
    await chmod(join(dataDir, 'service.db'), 0o644);
    await writeFile(join(dataDir, 'notes.txt'), 'mine', { mode: 0o644 });
    await chmod(join(dataDir, 'notes.txt'), 0o644);
    const svc = await startTestService({ dataDir, standby: 0, store: 'sqlite' });
    try {
      const mode = async (p: string) => (await stat(p)).mode & 0o7777;
      expect(await mode(dataDir)).toBe(asRoot ? 0o711 : 0o700);
      expect(await mode(join(dataDir, 'service.db'))).toBe(0o600);
      expect(await mode(join(dataDir, 'service.db-wal'))).toBe(0o600);
      expect(await mode(join(dataDir, 'notes.txt'))).toBe(0o644);
    } finally {
      await svc.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

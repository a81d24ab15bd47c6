// The process API against the real service (sandboxed when bwrap works here; sandbox.test.ts covers the
// sandbox itself and the service with it turned off). Pure parts (the replay buffer) are tested directly.
import Kernel, { NotFoundError } from '@onkernel/sdk';
import { readdir, readFile, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/service/host/process/accounts.js';
import { OutputLog, type OutputChunk } from '../../src/service/host/process/output.js';
import { eventually, isAlive, startTestService, type TestService } from '../helpers/service.js';

const SECRET_ENV = 'BCS_PROCESS_TEST_SECRET';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const accounts = Accounts.fromHost();
const serviceIsRoot = process.getuid?.() === 0;

/** Pids of host processes whose command line contains `needle`. */
async function hostProcesses(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

interface StreamEvent {
  stream?: 'stdout' | 'stderr';
  data_b64?: string;
  event?: 'exit';
  exit_code?: number;
}

/** Parses an SSE response into its JSON events, reading only as fast as the caller asks. */
async function* sseEvents(res: Response): AsyncGenerator<StreamEvent> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      for (const line of block.split('\n')) if (line.startsWith('data: ')) yield JSON.parse(line.slice(6)) as StreamEvent;
    }
  }
}

function processApi(svc: TestService, sessionId: string) {
  const base = `/browsers/${sessionId}/process`;
  return {
    exec: (body: object) => svc.call('POST', `${base}/exec`, { body }),
    /** Exec that must succeed; returns decoded output. */
    run: async (body: object) => {
      const res = await svc.call('POST', `${base}/exec`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ...res.body, stdout: unb64(res.body.stdout_b64), stderr: unb64(res.body.stderr_b64) };
    },
    spawn: async (body: object) => {
      const res = await svc.call('POST', `${base}/spawn`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { process_id: string; pid: number; started_at: string };
    },
    status: (pid: string) => svc.call('GET', `${base}/${pid}/status`),
    stdin: (pid: string, data: string) => svc.call('POST', `${base}/${pid}/stdin`, { body: { data_b64: b64(data) } }),
    kill: (pid: string, body?: object) => svc.call('POST', `${base}/${pid}/kill`, { body }),
    resize: (pid: string, body: object) => svc.call('POST', `${base}/${pid}/resize`, { body }),
    stream: (pid: string) => fetch(`${svc.baseUrl}${base}/${pid}/stdout/stream`, { headers: { authorization: `Bearer ${svc.apiKey}` } }),
    /** Reads a whole stream: output per stream and the exit code. */
    collect: async (pid: string, until?: (out: string) => boolean, onMatch?: () => Promise<unknown>) => {
      const res = await fetch(`${svc.baseUrl}${base}/${pid}/stdout/stream`, { headers: { authorization: `Bearer ${svc.apiKey}` } });
      const out = { stdout: '', stderr: '', exitCode: undefined as number | undefined };
      let matched = false;
      for await (const ev of sseEvents(res)) {
        if (ev.event === 'exit') out.exitCode = ev.exit_code;
        else out[ev.stream!] += unb64(ev.data_b64!);
        if (!matched && until?.(out.stdout)) {
          matched = true;
          await onMatch?.();
        }
      }
      return out;
    },
    waitExited: (pid: string) =>
      eventually(async () => {
        const res = await svc.call('GET', `${base}/${pid}/status`);
        return res.body.state === 'exited' ? res.body : undefined;
      }, 30_000, 50),
  };
}

const fieldsOf = (res: { body: { details?: Array<{ field: string }> } }) => (res.body.details ?? []).map((d) => d.field);

describe('process API', () => {
  let svc: TestService;
  let sessionId: string;
  let api: ReturnType<typeof processApi>;

  beforeAll(async () => {
    process.env[SECRET_ENV] = 'must-not-leak';
    svc = await startTestService();
    if (!svc.sandbox) console.warn(`process tests run unsandboxed: ${svc.sandboxReason}`);
    sessionId = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
    api = processApi(svc, sessionId);
  });
  afterAll(async () => {
    delete process.env[SECRET_ENV];
    await svc.close();
  });

  it('exec returns exit code, stdout and stderr separately, and the duration', async () => {
    const r = await api.run({ command: 'sh', args: ['-c', 'echo out; echo err >&2; exit 3'] });
    expect(r).toMatchObject({ exit_code: 3, stdout: 'out\n', stderr: 'err\n', timed_out: false, stdout_truncated: false });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    expect(r.duration_ms).toBeLessThan(10_000);
    expect((await api.run({ command: 'true' })).exit_code).toBe(0);
    expect((await api.run({ command: '/bin/echo', args: ['a b', 'c'] })).stdout).toBe('a b c\n');
  });

  it('gives a clean environment plus the request env, never the service’s own', async () => {
    const r = await api.run({ command: 'env', env: { GREETING: 'hi there', PATH: '/usr/bin:/bin' } });
    const env = Object.fromEntries(r.stdout.trim().split('\n').map((l: string) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(env).toMatchObject({ GREETING: 'hi there', PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' });
    expect(env.HOME).toMatch(/\/home\/kernel$/);
    expect(env.USER).toBeTruthy();
    expect(env[SECRET_ENV]).toBeUndefined();
    expect(r.stdout).not.toContain('must-not-leak');
    // In a network of its own, the way out is named the way tools look for it.
    const proxyVars = ['http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'];
    if (svc.sandbox?.network) for (const name of proxyVars) expect(env[name]).toBe('http://127.0.0.1:3128');
    expect(Object.keys(env).filter((name) => !proxyVars.includes(name)).length).toBeLessThan(12);
  });

  it('runs in cwd (default /home/kernel) and finds commands given by a view path', async () => {
    expect((await api.run({ command: 'pwd' })).stdout.trim()).toMatch(/\/home\/kernel$/);
    expect((await api.run({ command: 'pwd', cwd: '/tmp' })).stdout.trim()).toMatch(/\/tmp$/);
    await api.run({ command: 'sh', args: ['-c', `printf '#!/bin/sh\\necho from-script "$@"\\n' > "$HOME/s.sh" && chmod +x "$HOME/s.sh"`] });
    expect((await api.run({ command: '/home/kernel/s.sh', args: ['x'] })).stdout).toBe('from-script x\n');
    expect((await api.run({ command: './s.sh', cwd: '/home/kernel' })).stdout).toBe('from-script\n');
  });

  it('runs as the unprivileged default user unless as_root; as_user picks a user; files stay readable', async () => {
    const who = await api.run({ command: 'id', args: ['-u'] });
    const kernelUid = svc.sandbox?.privileged ? accounts.kernel.uid : accounts.service.uid;
    // Unsandboxed, a root service gives each session a uid of its own and refuses as_root (isolation.test.ts).
    if (serviceIsRoot && !svc.sandbox) return expect(Number(who.stdout)).toBeGreaterThan(65534);
    expect(Number(who.stdout)).toBe(kernelUid);
    if (!serviceIsRoot) return;
    expect((await api.run({ command: 'id', args: ['-u'], as_root: true })).stdout).toBe('0\n');
    expect((await api.run({ command: 'id', args: ['-un'], as_user: 'daemon' })).stdout).toBe('daemon\n');
    // $HOME is the view's home sandboxed or not (unsandboxed, paths in arguments are host paths).
    await api.run({ command: 'sh', args: ['-c', 'echo mine > "$HOME/by-default.txt"'] });
    await api.run({ command: 'sh', args: ['-c', 'echo root > "$HOME/by-root.txt"'], as_root: true });
    const view = svc.sessions.get(sessionId)!.view;
    const owned = await stat(view.hostPath('/home/kernel/by-default.txt'));
    expect(owned.uid).toBe(kernelUid);
    expect((await stat(view.hostPath('/home/kernel/by-root.txt'))).uid).toBe(0);
    // The service (root) reads both, which is what the fs API needs.
    expect(await readFile(view.hostPath('/home/kernel/by-default.txt'), 'utf8')).toBe('mine\n');
    // The default user cannot touch root's file, as on a real host.
    const denied = await api.exec({ command: 'sh', args: ['-c', 'echo x >> "$HOME/by-root.txt"'] });
    expect(denied.body.exit_code === 0).toBe(kernelUid === 0);
  });

  it('exec rejects bad input with 400s naming the field', async () => {
    const cases: Array<[object, string]> = [
      [{}, 'body.command'],
      [{ command: '' }, 'body.command'],
      [{ command: 'ls', args: 'x' }, 'body.args'],
      [{ command: 'ls', args: [1] }, 'body.args.0'],
      [{ command: 'ls', args: ['a\u0000b'] }, 'body.args.0'],
      [{ command: 'ls', cwd: 'relative' }, 'body.cwd'],
      [{ command: 'ls', env: { A: 1 } }, 'body.env.A'],
      [{ command: 'ls', env: { 'A=B': 'x' } }, 'body.env'],
      [{ command: 'ls', timeout_sec: 0 }, 'body.timeout_sec'],
      [{ command: 'ls', timeout_sec: 1.5 }, 'body.timeout_sec'],
      [{ command: 'ls', as_root: 'yes' }, 'body.as_root'],
      [{ command: 'ls', extra: true }, 'body.extra'],
      [{ command: 'ls', as_user: 'no-such-user-here' }, 'body.as_user'],
      [{ command: 'ls', as_user: 'daemon', as_root: true }, 'body.as_user'],
      [{ command: 'no-such-command-xyz' }, 'body.command'],
      [{ command: '/home/kernel/missing.sh' }, 'body.command'],
      [{ command: 'ls', cwd: '/no/such/dir' }, 'body.cwd'],
    ];
    for (const [body, field] of cases) {
      const res = await api.exec(body);
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.code).toBe('bad_request');
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect((await svc.call('POST', '/browsers/nope/process/exec', { body: { command: 'true' } })).status).toBe(404);
  });

  it('a timeout kills the whole process group, children too, and says so', async () => {
    const started = Date.now();
    const r = await api.run({ command: 'sh', args: ['-c', 'sleep 77.1 & sleep 77.2'], timeout_sec: 1 });
    expect(r).toMatchObject({ exit_code: 124, timed_out: true });
    expect(Date.now() - started).toBeLessThan(30_000);
    await eventually(async () => ((await hostProcesses('77.1')).length + (await hostProcesses('77.2')).length === 0 ? true : undefined), 30_000);
  });

  it('caps exec output per stream and says it truncated', async () => {
    const r = await api.exec({ command: 'head', args: ['-c', String(70 * 1024 * 1024), '/dev/zero'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ exit_code: 0, stdout_truncated: true, stderr_truncated: false });
    expect(Buffer.from(r.body.stdout_b64, 'base64').length).toBe(64 * 1024 * 1024);
  });

  it('spawn streams stdout and stderr frames, then the exit frame; status reports the exit', async () => {
    const p = await api.spawn({ command: 'sh', args: ['-c', 'echo out; echo err >&2; exit 5'] });
    expect(p.process_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(p.pid).toBeGreaterThan(1);
    expect(Date.parse(p.started_at)).toBeGreaterThan(Date.now() - 60_000);
    const out = await api.collect(p.process_id);
    expect(out).toEqual({ stdout: 'out\n', stderr: 'err\n', exitCode: 5 });
    expect(await api.waitExited(p.process_id)).toMatchObject({ state: 'exited', exit_code: 5, cpu_pct: 0, mem_bytes: 0 });
  });

  it('a client connecting after the process ended gets the buffered output, bounded, then the exit', async () => {
    const small = await api.spawn({ command: 'sh', args: ['-c', 'echo early; echo late >&2'] });
    await api.waitExited(small.process_id);
    expect(await api.collect(small.process_id)).toEqual({ stdout: 'early\n', stderr: 'late\n', exitCode: 0 });
    const big = await api.spawn({ command: 'sh', args: ['-c', 'head -c 5000000 /dev/zero; echo tail-marker'] });
    await api.waitExited(big.process_id);
    const out = await api.collect(big.process_id);
    expect(out.stdout.length).toBeLessThanOrEqual(1024 * 1024);
    expect(out.stdout.endsWith('tail-marker\n')).toBe(true);
    expect(out.exitCode).toBe(0);
  });

  it('stdin reaches the process: echo through cat', async () => {
    const p = await api.spawn({ command: 'cat' });
    const collected = api.collect(p.process_id, (o) => o.includes('hello\n'), () => api.kill(p.process_id, { signal: 'TERM' }));
    await sleep(100);
    const res = await api.stdin(p.process_id, 'hello\n');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ written_bytes: 6 });
    expect(await collected).toEqual({ stdout: 'hello\n', stderr: '', exitCode: 143 });
    expect((await api.stdin(p.process_id, 'late')).status).toBe(409);
  });

  it('streams 20 MB without holding it: a reader that stops reading pauses the process', async () => {
    const count = 2_600_000; // `seq` prints about 20 MB
    const p = await api.spawn({ command: 'sh', args: ['-c', `read go; seq 1 ${count}`] });
    const res = await api.stream(p.process_id);
    await api.stdin(p.process_id, 'go\n');
    await sleep(1500);
    // Nobody is reading: the service holds at most its high-water mark, so the process must be blocked.
    expect((await api.status(p.process_id)).body.state).toBe('running');
    const parts: Buffer[] = [];
    let exitCode: number | undefined;
    for await (const ev of sseEvents(res)) {
      if (ev.event === 'exit') exitCode = ev.exit_code;
      else parts.push(Buffer.from(ev.data_b64!, 'base64'));
    }
    const text = Buffer.concat(parts).toString();
    expect(text.length).toBeGreaterThan(19_000_000);
    expect(text).toBe(Array.from({ length: count }, (_, i) => i + 1).join('\n') + '\n');
    expect(exitCode).toBe(0);
  });

  it('spawn with a PTY: stdin is a terminal, and resize shows in stty size', async () => {
    const p = await api.spawn({ command: 'sh', args: ['-c', 'tty; test -t 0 && test -t 1 && stty size; read x; stty size'], allocate_tty: true, rows: 30, cols: 100 });
    const out = await api.collect(
      p.process_id,
      (o) => o.includes('30 100'),
      async () => {
        expect((await api.resize(p.process_id, { rows: 40, cols: 120 })).body).toEqual({ ok: true });
        expect((await api.stdin(p.process_id, '\n')).status).toBe(200);
      },
    );
    // Inside bwrap the session's PTY shows as /dev/console (bwrap binds it there; /dev/pts is the sandbox's own).
    expect(out.stdout).toMatch(svc.sandbox ? /^\/dev\/console\r\n30 100\r\n/ : /^\/dev\/pts\/\d+\r\n30 100\r\n/);
    expect(out.stdout).toContain('40 120');
    expect(out.exitCode).toBe(0);
  });

  it('kill sends TERM by default, or KILL/INT/HUP, to the process group', async () => {
    const term = await api.spawn({ command: 'sleep', args: ['1000'] });
    expect((await api.kill(term.process_id)).body).toEqual({ ok: true });
    expect((await api.waitExited(term.process_id)).exit_code).toBe(143);
    expect((await api.kill(term.process_id, { signal: 'KILL' })).body).toEqual({ ok: true }); // already exited: still ok

    const hard = await api.spawn({ command: 'sh', args: ['-c', 'trap "" TERM; sleep 1000'] });
    await api.kill(hard.process_id, { signal: 'KILL' });
    expect((await api.waitExited(hard.process_id)).exit_code).toBe(137);

    const trapper = await api.spawn({ command: 'sh', args: ['-c', 'trap "echo got-int; exit 7" INT; echo ready; while :; do sleep 0.1; done'] });
    const out = await api.collect(trapper.process_id, (o) => o.includes('ready'), () => api.kill(trapper.process_id, { signal: 'INT' }));
    expect(out).toMatchObject({ stdout: 'ready\ngot-int\n', exitCode: 7 });

    const hup = await api.spawn({ command: 'sleep', args: ['1000'] });
    await api.kill(hup.process_id, { signal: 'HUP' });
    expect((await api.waitExited(hup.process_id)).exit_code).toBe(129);

    // On a PTY the signal reaches the command, not the sandbox around it.
    const tty = await api.spawn({ command: 'sh', args: ['-c', 'trap "echo bye; exit 9" TERM; echo ready; while :; do sleep 0.1; done'], allocate_tty: true });
    const ttyOut = await api.collect(tty.process_id, (o) => o.includes('ready'), () => api.kill(tty.process_id));
    // The whole group gets it: sh may also report its `sleep` as Terminated.
    expect(ttyOut.stdout).toMatch(/^ready\r\n(.*\r\n)?bye\r\n$/);
    expect(ttyOut.exitCode).toBe(9);
  });

  it('timeout_sec applies to spawned processes too', async () => {
    const p = await api.spawn({ command: 'sh', args: ['-c', 'echo started; sleep 100'], timeout_sec: 1 });
    expect(await api.collect(p.process_id)).toEqual({ stdout: 'started\n', stderr: '', exitCode: 124 });
  });

  it('status reports CPU and memory of a running process', async () => {
    const p = await api.spawn({ command: 'sh', args: ['-c', 'while :; do :; done'] });
    // A busy loop gets a core's worth or less, depending on what else the machine runs: clearly above idle
    // in some reading (a loaded machine can starve it for a moment; two readings in a row, not one).
    let busy = 0;
    const first = await eventually(async () => {
      const status = (await api.status(p.process_id)).body;
      busy = status.cpu_pct > 10 ? busy + 1 : 0;
      return busy >= 2 ? status : undefined;
    }, 30_000, 300);
    expect(first).toMatchObject({ state: 'running' });
    expect(first.exit_code).toBeUndefined();
    expect(first.mem_bytes).toBeGreaterThan(100_000);
    await api.kill(p.process_id, { signal: 'KILL' });
  });

  it('per-process endpoints reject bad input (400) and unknown processes (404)', async () => {
    const cat = await api.spawn({ command: 'cat' });
    const bad: Array<[Promise<{ status: number; body: any }>, string]> = [
      [svc.call('POST', `/browsers/${sessionId}/process/${cat.process_id}/stdin`, { body: { data_b64: '!!!' } }), 'body.data_b64'],
      [svc.call('POST', `/browsers/${sessionId}/process/${cat.process_id}/stdin`, { body: {} }), 'body.data_b64'],
      [api.kill(cat.process_id, { signal: 'FOO' }), 'body.signal'],
      [api.resize(cat.process_id, { rows: 0, cols: 10 }), 'body.rows'],
      [api.resize(cat.process_id, { rows: 10 }), 'body.cols'],
      [api.resize(cat.process_id, { rows: 10, cols: 10 }), 'process_id'],
      [svc.call('POST', `/browsers/${sessionId}/process/spawn`, { body: { command: 'cat', allocate_tty: true, rows: 0 } }), 'body.rows'],
      [svc.call('POST', `/browsers/${sessionId}/process/spawn`, { body: { command: 'cat', cols: 0 } }), 'body.cols'],
      [svc.call('POST', `/browsers/${sessionId}/process/spawn`, { body: { command: 'cat', allocate_tty: 'yes' } }), 'body.allocate_tty'],
      [api.status('not-a-uuid'), 'params.process_id'],
    ];
    for (const [pending, field] of bad) {
      const res = await pending;
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(fieldsOf(res).length ? fieldsOf(res) : [field], JSON.stringify(res.body)).toContain(field);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const res of [
      await api.status(unknown),
      await api.stdin(unknown, 'x'),
      await api.kill(unknown, { signal: 'TERM' }),
      await api.resize(unknown, { rows: 10, cols: 10 }),
      await api.stream(unknown).then(async (r) => ({ status: r.status, body: await r.json() })),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    await api.kill(cat.process_id, { signal: 'KILL' });
  });

  it('deleting the session kills every process it started', async () => {
    const id = (await svc.call('POST', '/browsers', { body: {} })).body.session_id;
    const own = processApi(svc, id);
    const piped = await own.spawn({ command: 'sh', args: ['-c', 'sleep 88.1 & sleep 88.2'] });
    const tty = await own.spawn({ command: 'sh', args: ['-c', 'sleep 88.3; true'], allocate_tty: true });
    const inFlight = own.exec({ command: 'sleep', args: ['88.4'] });
    const markers = ['88.1', '88.2', '88.3', '88.4'];
    await eventually(async () => ((await Promise.all(markers.map(hostProcesses))).every((p) => p.length > 0) ? true : undefined), 30_000, 50);
    expect((await svc.call('DELETE', `/browsers/${id}`)).status).toBe(204);
    for (const marker of markers) expect(await hostProcesses(marker), marker).toEqual([]);
    expect(isAlive(piped.pid)).toBe(false);
    expect(isAlive(tty.pid)).toBe(false);
    await inFlight;
    expect((await own.status(piped.process_id)).status).toBe(404);
  });

  it('the hosted SDK drives exec, spawn, status, stdin, stdoutStream, resize and kill unchanged', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const procs = kernel.browsers.process;
    const ran = await procs.exec(sessionId, { command: 'sh', args: ['-c', 'echo via-sdk; exit 2'], env: { X: '1' }, cwd: '/tmp', timeout_sec: 30 });
    expect(ran.exit_code).toBe(2);
    expect(unb64(ran.stdout_b64!)).toBe('via-sdk\n');

    const spawned = await procs.spawn(sessionId, { command: 'cat' });
    const id = { id: sessionId };
    expect((await procs.status(spawned.process_id!, id)).state).toBe('running');
    const stream = await procs.stdoutStream(spawned.process_id!, id);
    expect((await procs.stdin(spawned.process_id!, { ...id, data_b64: b64('ping\n') })).written_bytes).toBe(5);
    let seen = '';
    let exit: number | undefined;
    for await (const ev of stream) {
      if (ev.event === 'exit') exit = ev.exit_code;
      else if (ev.data_b64) {
        seen += unb64(ev.data_b64);
        if (seen.includes('ping')) expect((await procs.kill(spawned.process_id!, { ...id, signal: 'TERM' })).ok).toBe(true);
      }
    }
    expect(seen).toBe('ping\n');
    expect(exit).toBe(143);
    expect((await procs.status(spawned.process_id!, id)).state).toBe('exited');

    const tty = await procs.spawn(sessionId, { command: 'sleep', args: ['30'], allocate_tty: true, rows: 10, cols: 20 });
    expect((await procs.resize(tty.process_id!, { ...id, rows: 20, cols: 40 })).ok).toBe(true);
    await procs.kill(tty.process_id!, { ...id, signal: 'KILL' });
    await expect(procs.status('00000000-0000-4000-8000-000000000000', id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('output replay buffer', () => {
  const chunk = (n: number, fill = 'x'): OutputChunk => ({ stream: 'stdout', data: Buffer.alloc(n, fill) });

  it('keeps only the most recent bytes for late readers', () => {
    const log = new OutputLog({ pause() {}, resume() {} }, 1000);
    for (let i = 0; i < 50; i++) log.append(chunk(300, String(i % 10)));
    expect(log.bufferedBytes).toBe(1000);
    const got: Buffer[] = [];
    log.subscribe({ write: (c) => (got.push(c.data), true), end() {} });
    const all = Buffer.concat(got).toString();
    expect(all.length).toBe(1000);
    expect(all.endsWith('9'.repeat(300))).toBe(true);
  });

  it('pauses the source while a reader is backlogged and resumes when it drains or leaves', () => {
    const calls: string[] = [];
    const log = new OutputLog({ pause: () => calls.push('pause'), resume: () => calls.push('resume') }, 1000);
    let full = false;
    const sub = { write: () => !full, end() {} };
    const unsubscribe = log.subscribe(sub);
    log.append(chunk(10));
    full = true;
    log.append(chunk(10));
    log.append(chunk(10));
    expect(calls).toEqual(['pause']);
    full = false;
    log.unblock(sub);
    expect(calls).toEqual(['pause', 'resume']);
    full = true;
    log.append(chunk(10));
    unsubscribe();
    expect(calls).toEqual(['pause', 'resume', 'pause', 'resume']);
    let ended: number | undefined;
    log.finish(3);
    log.subscribe({ write: () => true, end: (code) => (ended = code) });
    expect(ended).toBe(3);
  });
});

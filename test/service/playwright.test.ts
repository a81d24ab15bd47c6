// Playwright execute against the real service and real Chromium: values, console capture, state kept
// between calls, every way user code can fail (none of which may hurt the service), serialisation per
// session, and the hosted SDK's call.
import Kernel from '@onkernel/sdk';
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CappedText, JobOutput, utf8Boundary } from '../../src/service/host/playwright/output.js';
import { PlaywrightWorker } from '../../src/service/host/playwright/worker.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

interface ExecuteBody {
  success: boolean;
  result?: unknown;
  error?: string;
  stdout?: string;
  stderr?: string;
}

/** Pids of host processes whose command line or working directory mentions `needle`. */
async function processesWith(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    if (cmdline.includes(needle) || cwd.includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

const fieldsOf = (res: { body: { details?: Array<{ field: string }> } }) => (res.body.details ?? []).map((d) => d.field);

describe('playwright execute', () => {
  let svc: TestService;
  let sessionId: string;

  const execute = async (code: string, extra: object = {}, id = sessionId): Promise<ExecuteBody> => {
    const res = await svc.call('POST', `/browsers/${id}/playwright/execute`, { body: { code, ...extra } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as ExecuteBody;
  };

  beforeAll(async () => {
    svc = await startTestService();
    sessionId = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
  });
  afterAll(async () => {
    await svc?.close();
  });

  it('returns values: numbers, objects, nothing, and the page title after a navigation', async () => {
    expect(await execute('return 1 + 1')).toMatchObject({ success: true, result: 2, stdout: '', stderr: '' });
    expect((await execute('return { a: [1, "two", null], b: { c: true } }')).result).toEqual({ a: [1, 'two', null], b: { c: true } });
    expect(await execute('await page.title()')).toMatchObject({ success: true, result: null });
    const titled = await execute(`await page.goto('data:text/html,<title>x</title>'); return await page.title();`);
    expect(titled).toMatchObject({ success: true, result: 'x' });
    expect((await execute('return [typeof page.goto, typeof context.pages, typeof browser.contexts, context.pages().length]')).result).toEqual([
      'function',
      'function',
      'function',
      1,
    ]);
  });

  it('takes TypeScript, as the hosted API does', async () => {
    const r = await execute('const n: number = 40; interface P { x: number }; const p = { x: 2 } as P; return n + p.x;');
    expect(r).toMatchObject({ success: true, result: 42 });
  });

  it('captures console.log and console.error separately', async () => {
    const r = await execute('console.log("out", 1); console.error("err", 2); process.stdout.write("raw\\n"); return "done"');
    expect(r).toMatchObject({ success: true, result: 'done', stdout: 'out 1\nraw\n', stderr: 'err 2\n' });
  });

  it('caps each output stream at 1 MiB and says so', async () => {
    const r = await execute('const line = "x".repeat(1023); for (let i = 0; i < 2048; i++) console.log(line); return 1');
    expect(r.success).toBe(true);
    expect(r.stdout!.length).toBeLessThan(1024 * 1024 + 200);
    expect(r.stdout).toMatch(/\[stdout truncated: 1048576 more bytes after the first 1048576 were dropped\]$/);
  });

  it('keeps the session’s state between calls: the page, its variables, and what another client sees', async () => {
    await execute(`await page.goto('data:text/html,<title>kept</title><p>hi</p>'); await page.evaluate(() => { window.kept = 41 })`);
    expect((await execute('return await page.evaluate(() => window.kept + 1)')).result).toBe(42);
    expect((await execute('return [page.url().startsWith("data:"), await page.title()]')).result).toEqual([true, 'kept']);
  });

  it('reports a thrown error, a syntax error and a value that is not JSON as failures', async () => {
    const thrown = await execute('console.log("before"); throw new Error("boom here")');
    expect(thrown).toMatchObject({ success: false, error: 'boom here', stdout: 'before\n' });
    expect(thrown.result).toBeUndefined();
    expect((await execute('throw "a string"')).error).toBe('a string');
    const typeError = await execute('null.x');
    expect(typeError.error).toMatch(/^TypeError: /);
    const syntax = await execute('const a = 1;\nreturn a a;');
    expect(syntax).toMatchObject({ success: false, error: 'SyntaxError: Expected ";" but found "a" (line 2, column 10)' });
    expect((await execute('return (1 +')).error).toMatch(/^SyntaxError: .*\(at the end of the code\)$/);
    const circular = await execute('const o = {}; o.self = o; return o');
    expect(circular).toMatchObject({ success: false });
    expect(circular.error).toMatch(/not JSON-serialisable.*circular/i);
    expect((await execute('return () => 1')).error).toMatch(/not JSON-serialisable: a function/);
    expect((await execute('return 10n')).error).toMatch(/not JSON-serialisable/);
    const pwTimeout = await execute('await page.waitForSelector("#never", { timeout: 200 })');
    expect(pwTimeout.error).toMatch(/^TimeoutError: /);
  });

  it('survives code that exits its process, spins forever or runs out of memory', async () => {
    const exited = await execute('console.log("bye"); process.exit(3)');
    expect(exited).toMatchObject({ success: false, stdout: 'bye\n' });
    expect(exited.error).toMatch(/exit code 3/);

    const started = Date.now();
    const spun = await execute('while (true) {}', { timeout_sec: 1 });
    expect(spun).toMatchObject({ success: false, error: 'execution timed out after 1 s' });
    // Killed at its own second, not at the 60 s default; the bound leaves room for a slow start on a busy machine.
    expect(Date.now() - started).toBeLessThan(30_000);

    const hung = await execute('console.log("waiting"); await new Promise(() => {})', { timeout_sec: 1 });
    expect(hung).toMatchObject({ success: false, error: 'execution timed out after 1 s', stdout: 'waiting\n' });

    const oom = await execute('const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()))', { timeout_sec: 60 });
    expect(oom.success).toBe(false);
    expect(oom.error).toMatch(/ran out of memory/);

    // The service and the session are fine after all of that.
    expect((await execute('return await page.evaluate(() => 6 * 7)')).result).toBe(42);
  }, 120_000);

  it('runs the code in a separate process, never in the service', async () => {
    const r = await execute('return { pid: process.pid, ppid: process.ppid, hasRequire: typeof require }');
    const body = r.result as { pid: number; ppid: number; hasRequire: string };
    expect(body.pid).not.toBe(process.pid);
    expect(body.hasRequire).toBe('undefined');
    // Relative paths land in the session's home, where the fs and process APIs see them.
    const shot = await execute(`await page.screenshot({ path: 'shot.png' }); return (await import('node:fs')).statSync('shot.png').size`);
    expect(shot.result).toBeGreaterThan(0);
    const onHost = await stat(svc.sessions.get(sessionId)!.view.hostPath('/home/kernel/shot.png'));
    expect(onHost.size).toBe(shot.result);
    // The service's own environment (API keys and the like) is not the worker's.
    process.env.BCS_PW_TEST_SECRET = 'must-not-leak';
    try {
      expect((await execute('return process.env.BCS_PW_TEST_SECRET ?? null')).result).toBeNull();
    } finally {
      delete process.env.BCS_PW_TEST_SECRET;
    }
  });

  it('serialises executions on one session', async () => {
    const code = (tag: string) => `
      const before = await page.evaluate(() => (window.active = (window.active || 0) + 1));
      await new Promise((r) => setTimeout(r, 300));
      await page.evaluate(() => window.active--);
      return [${JSON.stringify(tag)}, before, Date.now()];`;
    const results = await Promise.all(['a', 'b', 'c'].map((t) => execute(code(t))));
    for (const r of results) expect(r.success, r.error).toBe(true);
    // Each one saw itself as the only one running.
    expect(results.map((r) => (r.result as [string, number])[1])).toEqual([1, 1, 1]);
    const ends = results.map((r) => (r.result as [string, number, number])[2]).sort((x, y) => x - y);
    expect(ends[1]! - ends[0]!).toBeGreaterThanOrEqual(250);
    expect(ends[2]! - ends[1]!).toBeGreaterThanOrEqual(250);
  });

  it('rejects bad input with 400s naming the field, and unknown sessions with 404', async () => {
    const cases: Array<[object, string]> = [
      [{}, 'body.code'],
      [{ code: '' }, 'body.code'],
      [{ code: 42 }, 'body.code'],
      [{ code: 'return 1', timeout_sec: 0 }, 'body.timeout_sec'],
      [{ code: 'return 1', timeout_sec: 301 }, 'body.timeout_sec'],
      [{ code: 'return 1', timeout_sec: 1.5 }, 'body.timeout_sec'],
      [{ code: 'return 1', timeout_sec: '5' }, 'body.timeout_sec'],
      [{ code: 'return 1', extra: true }, 'body.extra'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.call('POST', `/browsers/${sessionId}/playwright/execute`, { body });
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.code).toBe('bad_request');
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    const missing = await svc.call('POST', '/browsers/nope/playwright/execute', { body: { code: 'return 1' } });
    expect(missing.status).toBe(404);
    expect((await execute('return 1', { timeout_sec: 300 })).result).toBe(1);
    expect((await execute('return 1', { timeout_sec: null })).result).toBe(1);
  });

  it('works through the hosted SDK', async () => {
    const kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
    const r = await kernel.browsers.playwright.execute(sessionId, { code: 'console.log("sdk"); return await page.evaluate(() => 1 + 2)' });
    expect(r).toMatchObject({ success: true, result: 3, stdout: 'sdk\n' });
    const failed = await kernel.browsers.playwright.execute(sessionId, { code: 'throw new Error("sdk boom")', timeout_sec: 5 });
    expect(failed).toMatchObject({ success: false, error: 'sdk boom' });
  });

  it('counts as activity, and deleting the session kills a running execution', async () => {
    const id = (await svc.call('POST', '/browsers', { body: {} })).body.session_id as string;
    expect((await execute('return 1', {}, id)).result).toBe(1);
    const running = execute(`console.log("started"); await new Promise(() => {})`, { timeout_sec: 120 }, id);
    await new Promise((r) => setTimeout(r, 300));
    // The execution keeps touching the session while it runs, as an open CDP connection would.
    const seen = svc.sessions.get(id)!.lastActivity;
    await new Promise((r) => setTimeout(r, 1000));
    expect(svc.sessions.get(id)!.lastActivity).toBeGreaterThan(seen + 500);

    const del = await svc.call('DELETE', `/browsers/${id}`);
    expect(del.status).toBeLessThan(300);
    const ended = await running;
    expect(ended).toMatchObject({ success: false, error: 'the browser session ended while the code was running', stdout: 'started\n' });
    expect((await svc.call('POST', `/browsers/${id}/playwright/execute`, { body: { code: 'return 1' } })).status).toBe(404);
  });

  it('keeps one job’s late output out of the next, and replaces a worker a job broke', async () => {
    const first = await execute('setTimeout(() => console.log("late"), 100); globalThis.mark = "kept"; return process.pid');
    await new Promise((r) => setTimeout(r, 300));
    const second = await execute('return [process.pid, globalThis.mark]');
    expect(second).toMatchObject({ success: true, stdout: '' });
    // The worker is reused between calls (that is what makes them fast).
    expect(second.result).toEqual([first.result, 'kept']);

    const uncaught = await execute('setTimeout(() => { throw new Error("from a timer") }, 10); await new Promise((r) => setTimeout(r, 1000))');
    expect(uncaught).toMatchObject({ success: false, error: 'uncaught exception: from a timer' });
    const rejected = await execute('Promise.reject(new Error("nobody waits")); await new Promise((r) => setTimeout(r, 50)); return "fine"');
    expect(rejected).toMatchObject({ success: true, result: 'fine', stderr: 'Unhandled promise rejection: nobody waits\n' });
    // A fresh worker after the uncaught exception: the old one's globals are gone.
    expect((await execute('return globalThis.mark ?? null')).result).toBeNull();
  });

  it('leaves no worker behind once sessions are gone, and the service stays healthy', async () => {
    const created = await svc.call('POST', '/browsers', { body: {} });
    expect(created.status).toBe(200);
    const id = created.body.session_id as string;
    expect((await execute('return 5', {}, id)).result).toBe(5);
    expect((await svc.call('DELETE', `/browsers/${id}`)).status).toBeLessThan(300);
    await eventually(async () => ((await processesWith(`/${id}/`)).length === 0 ? true : undefined), 30_000);
    expect((await svc.call('GET', `/browsers/${sessionId}`)).status).toBe(200);
  });

  it('measures a trivial execute: p50 over 20 warm calls, and the first call on a fresh session', async () => {
    const fresh = (await svc.call('POST', '/browsers', { body: {} })).body.session_id as string;
    const c0 = performance.now();
    expect((await execute('return 1', {}, fresh)).result).toBe(1);
    const cold = performance.now() - c0;
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      expect((await execute('return 1', {}, fresh)).result).toBe(1);
      times.push(performance.now() - t0);
    }
    await svc.call('DELETE', `/browsers/${fresh}`);
    times.sort((a, b) => a - b);
    const p50 = times[10]!;
    console.log(`playwright execute "return 1": first ${cold.toFixed(0)} ms; then p50 ${p50.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[19]!.toFixed(0)} ms`);
    // A warm call reuses the session's worker and connection: far less than the first call, which makes them.
    expect(p50).toBeLessThan(cold);
  });
});

describe('playwright output capture', () => {
  it('keeps the first bytes and never splits a character', () => {
    const t = new CappedText(5, 'stdout');
    t.push(Buffer.from('abcé')); // 5 bytes exactly
    t.push(Buffer.from('z'));
    expect(t.toString()).toBe('abcé\n[stdout truncated: 1 more bytes after the first 5 were dropped]');
    const cut = new CappedText(4, 'stderr');
    cut.push(Buffer.from('abcé'));
    expect(cut.toString().startsWith('abc\n[stderr truncated')).toBe(true);
    expect(utf8Boundary(Buffer.from('€').subarray(0, 2))).toBe(0);
    expect(utf8Boundary(Buffer.from('a€'))).toBe(4);
  });

  it('ends a job’s output at its marker, also when the marker is split across reads', async () => {
    const marker = Buffer.from('\u0000END-123\u0000');
    const out = new JobOutput(marker, 1024, 'stdout');
    const all = Buffer.concat([Buffer.from('hello\nworld'), marker, Buffer.from('after')]);
    for (let i = 0; i < all.length; i += 3) out.push(all.subarray(i, i + 3));
    await out.ended;
    expect(out.finish()).toBe('hello\nworld');
    const unfinished = new JobOutput(marker, 1024, 'stdout');
    unfinished.push(Buffer.from('partial\u0000EN'));
    expect(unfinished.complete).toBe(false);
    expect(unfinished.finish()).toBe('partial\u0000EN');
  });
});

describe('playwright worker', () => {
  it('reports a worker that cannot even start, and is not used again', async () => {
    const command = { file: '/nonexistent/node', args: [], env: {}, cwd: '/', sandboxed: false };
    const worker = new PlaywrightWorker(command, 1024);
    const run = await worker.run({ wsEndpoint: 'ws://127.0.0.1:9/x', code: '(async () => 1)' }, 5_000);
    expect(run.end).toMatchObject({ kind: 'stopped', reason: expect.stringMatching(/failed: .*ENOENT/) });
    expect(worker.usable).toBe(false);
  });
});

// The app under test as a process group: started, awaited, and stopped with everything it spawned; and
// the scenario-level `web_server:` around a real run.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answers, startWebServer } from '../../runner/exec/web-server.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({
  // Answers 404 everywhere but /ready: any status below 500 means the server is up.
  'app.mjs': `
import { createServer } from 'node:http';
const port = Number(process.env.PORT);
console.log('booting on ' + port);
createServer((req, res) => { res.statusCode = req.url === '/ready' ? 200 : 404; res.end('app ' + req.url); })
  .listen(port, '127.0.0.1', () => console.log('listening'));
`,
});

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Live (not zombie) processes whose process group is `pgid`. */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('startWebServer', () => {
  it('starts the command in its own process group, waits for the URL, and stops the whole group', async () => {
    const port = await freePort();
    // A helper the command leaves running in the background must go too.
    const server = await startWebServer({
      command: `sleep 300 & exec node app.mjs`, cwd: project.dir, env: { PORT: String(port) }, url: `http://127.0.0.1:${port}/not-a-page`, timeoutMs: 15_000,
    });
    expect(server.reused).toBe(false);
    expect(server.url).toBe(`http://127.0.0.1:${port}/not-a-page`);
    expect(await answers(`http://127.0.0.1:${port}/ready`, 1000)).toBe(true);
    const members = groupMembers(server.pid!);
    expect(members.length).toBe(2);
    expect(members).not.toContain(process.pid);
    await server.stop();
    expect(groupMembers(server.pid!)).toEqual([]);
    expect(await answers(`http://127.0.0.1:${port}/ready`, 500)).toBe(false);
  });

  it('fails with the last lines of output when the command exits before the URL answers', async () => {
    const port = await freePort();
    const started = Date.now();
    await expect(startWebServer({
      command: 'echo starting; for i in 1 2 3; do echo "line $i"; done; echo "error: port in use" >&2; exit 3',
      url: `http://127.0.0.1:${port}/`, timeoutMs: 20_000,
    })).rejects.toThrow(/^web server exited with code 3 before http:\/\/127\.0\.0\.1:\d+\/ answered; its last output:\nstarting\nline 1\nline 2\nline 3\nerror: port in use$/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('fails after its timeout when the URL never answers, and leaves nothing running', async () => {
    const port = await freePort();
    let pgid: number | undefined;
    // An unusual duration, to find the process by its command line: no handle comes back on failure.
    const attempt = startWebServer({ command: 'echo waiting forever; exec sleep 313', url: `http://127.0.0.1:${port}/`, timeoutMs: 800, killGraceMs: 500 });
    const sleeper = () => readdirSync('/proc').find((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8') === 'sleep\u0000313\u0000';
      } catch {
        return false;
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    pgid = Number(sleeper());
    expect(pgid).toBeGreaterThan(0);
    await expect(attempt).rejects.toThrow(`web server did not answer at http://127.0.0.1:${port}/ within 800 ms; its last output:\nwaiting forever`);
    expect(groupMembers(pgid)).toEqual([]);
  });

  it('reuses a server that already answers, and leaves it running', async () => {
    const existing: Server = createServer((_req, res) => res.end('mine'));
    await new Promise<void>((r) => existing.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(existing.address() as { port: number }).port}/`;
    try {
      const server = await startWebServer({ command: 'exit 1', url, reuseExisting: true });
      expect(server).toMatchObject({ url, reused: true });
      expect(server.pid).toBeUndefined();
      await server.stop();
      expect(await answers(url, 1000)).toBe(true);
    } finally {
      await new Promise((r) => existing.close(r));
    }
  });

  it('a 5xx answer is not ready yet', async () => {
    const failing: Server = createServer((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((r) => failing.listen(0, '127.0.0.1', () => r()));
    try {
      expect(await answers(`http://127.0.0.1:${(failing.address() as { port: number }).port}/`, 1000)).toBe(false);
    } finally {
      await new Promise((r) => failing.close(r));
    }
  });
});

describe('web_server in a scenario', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());
  const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

  it('runs the web-server example against the app it starts, and stops the app after the run', async () => {
    const port = await freePort();
    const res = await runCli(['run', 'scenarios/examples/web-server.yaml', '--var', `port=${port}`, '--json'], remote());
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const steps = JSON.parse(res.stdout).scenarios[0].steps as { kind: string; name: string; status: string }[];
    expect(steps.map((s) => `${s.kind} ${s.status}`)).toEqual([
      'web_server passed', 'browser passed', 'goto passed', 'expect passed', 'release passed', 'web_server_stop passed',
    ]);
    expect(steps[2]!.name).toBe(`goto http://127.0.0.1:${port}/hello`);
    expect(await answers(`http://127.0.0.1:${port}/`, 1000)).toBe(false);
  });

  it('a server that does not come up is an infrastructure error, before any browser', async () => {
    await project.write({ 'broken.yaml': `name: broken server
web_server: { command: "echo cannot start; exit 1", url: "http://127.0.0.1:9/" }
steps:
  - goto: "{{ web_server.url }}"
` });
    const file = project.path('broken.yaml');
    const before = svc.sessions.size;
    const res = await runCli(['run', file, '--json'], remote());
    expect(res.code).toBe(3);
    const [first, browser, goto] = JSON.parse(res.stdout).scenarios[0].steps;
    expect(first).toMatchObject({ kind: 'web_server', status: 'failed', error: { kind: 'infrastructure', location: `${file}:2:1` } });
    expect(first.error.message).toBe('web server exited with code 1 before http://127.0.0.1:9/ answered; its last output:\ncannot start');
    expect(browser).toMatchObject({ kind: 'browser', status: 'skipped' });
    expect(goto).toMatchObject({ kind: 'goto', status: 'skipped' });
    expect(svc.sessions.size).toBe(before);
  });
});

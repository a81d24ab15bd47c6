// The egress rules and a session's network of its own. A network namespace made here stands in for the
// internet and a private network (a "public" 11.22.33.2 and a private 10.222.0.2 on one veth pair), so no
// traffic leaves the machine. From inside a session, through its browser and its processes: public
// destinations go through the egress proxy (any port but 25), private and loopback ones are refused with a
// named reason unless listed in network.private_hosts, and the service's ports and another session's
// DevTools are unreachable whatever the policy. Processes that skip the proxy find no route at all.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseReader } from '../helpers/sse.js';
import { startTestService, type TestService } from '../helpers/service.js';

const asRoot = process.getuid?.() === 0;
const hasIp = (() => {
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skip = !asRoot || !hasIp;
if (skip) console.warn(`egress tests skipped: ${!asRoot ? 'they need root to make a network namespace' : 'iproute2 (ip) is not installed'}`);

const NS = `bcs-egress-${process.pid}`;
const PUBLIC = '11.22.33.2';
const PRIVATE = '10.222.0.2';
const unb64 = (s: string) => Buffer.from(s, 'base64').toString();

/** Two addresses in a namespace of the test's own, each answering HTTP on 8080 and 8443 with its name. */
async function startFakeNetwork(): Promise<ChildProcess> {
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  ip('netns', 'add', NS);
  ip('link', 'add', `${NS.slice(0, 10)}h`, 'type', 'veth', 'peer', 'name', `${NS.slice(0, 10)}n`);
  ip('link', 'set', `${NS.slice(0, 10)}n`, 'netns', NS);
  ip('addr', 'add', '11.22.33.1/24', 'dev', `${NS.slice(0, 10)}h`);
  ip('addr', 'add', '10.222.0.1/24', 'dev', `${NS.slice(0, 10)}h`);
  ip('link', 'set', `${NS.slice(0, 10)}h`, 'up');
  ip('-n', NS, 'addr', 'add', `${PUBLIC}/24`, 'dev', `${NS.slice(0, 10)}n`);
  ip('-n', NS, 'addr', 'add', `${PRIVATE}/24`, 'dev', `${NS.slice(0, 10)}n`);
  ip('-n', NS, 'link', 'set', `${NS.slice(0, 10)}n`, 'up');
  ip('-n', NS, 'link', 'set', 'lo', 'up');
  const code = `
    const http = require('http');
    for (const port of [8080, 8443]) http.createServer((req, res) => res.end('hello from ' + req.socket.localAddress + ':' + port)).listen(port, '0.0.0.0');
    setTimeout(() => console.log('ready'), 50);`;
  const server = spawn('ip', ['netns', 'exec', NS, process.execPath, '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.once('data', () => resolve());
    server.once('exit', (c) => reject(new Error(`the fake network's server exited (${c})`)));
  });
  return server;
}

function stopFakeNetwork(server: ChildProcess | undefined): void {
  server?.kill('SIGKILL');
  try {
    execFileSync('ip', ['netns', 'del', NS], { stdio: 'ignore' });
  } catch {
    // not made
  }
  try {
    execFileSync('ip', ['link', 'del', `${NS.slice(0, 10)}h`], { stdio: 'ignore' });
  } catch {
    // gone with the namespace
  }
}

describe.skipIf(skip)('egress from a session', () => {
  let fake: ChildProcess | undefined;
  let site: http.Server;
  let sitePort: number;

  beforeAll(async () => {
    fake = await startFakeNetwork();
    site = http.createServer((_req, res) => res.end('host loopback site')).listen(0, '127.0.0.1');
    await new Promise((r) => site.once('listening', r));
    sitePort = (site.address() as AddressInfo).port;
  });
  afterAll(() => {
    site?.close();
    stopFakeNetwork(fake);
  });

  describe('under the hosted policy, sandboxed', () => {
    let svc: TestService;
    let a: { session_id: string; cdp_ws_url: string };
    let b: { session_id: string };
    let browser: Browser;

    const sh = async (id: string, script: string) => {
      const res = await svc.call('POST', `/browsers/${id}/process/exec`, { body: { command: 'sh', args: ['-c', script], timeout_sec: 30 } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { exit_code: res.body.exit_code as number, stdout: unb64(res.body.stdout_b64), stderr: unb64(res.body.stderr_b64) };
    };

    beforeAll(async () => {
      svc = await startTestService({ networkPolicy: 'hosted' });
      a = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body;
      b = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600, network: { private_hosts: ['10.222.0.0/24'] } } })).body;
      browser = await chromium.connectOverCDP(a.cdp_ws_url);
    });
    afterAll(async () => {
      await browser?.close().catch(() => undefined);
      await svc?.close();
    });

    it('gives each sandboxed session a network of its own, and says so', () => {
      expect(svc.sandbox?.network, svc.sandbox?.networkReason).toBeTruthy();
      expect(svc.isolation).toContain('network of its own');
    });

    it("lets the browser reach public destinations on any port, and names each refusal in the page's network log", async () => {
      const page = await browser.contexts()[0]!.newPage();
      const load = async (url: string) => {
        const res = await page.goto(url);
        return { status: res!.status(), refused: await res!.headerValue('x-bcs-egress-refused'), text: await page.innerText('body') };
      };
      expect(await load(`http://${PUBLIC}:8080/`)).toMatchObject({ status: 200, text: `hello from ${PUBLIC}:8080` });
      expect(await load(`http://${PUBLIC}:8443/`)).toMatchObject({ status: 200 });
      const priv = await load(`http://${PRIVATE}:8080/`);
      expect(priv).toMatchObject({ status: 403, refused: 'private_address' });
      expect(priv.text).toContain('network.private_hosts');
      expect(await load(`http://127.0.0.1:${sitePort}/`)).toMatchObject({ status: 403, refused: 'private_address' });
      // Port 25 never reaches the proxy from Chromium (ERR_UNSAFE_PORT); processes test it below.
      await page.close();
    });

    it("reports a refusal in the session's service log", async () => {
      const { reader } = await SseReader.open<{ message: string }>(`${svc.baseUrl}/browsers/${a.session_id}/logs/stream?source=supervisor&supervisor_process=service`, {
        authorization: `Bearer ${svc.apiKey}`,
      });
      try {
        await reader!.waitFor((e) => /egress refused GET 10\.222\.0\.2:8080: .*\(private_address\)/.test(e.message));
      } finally {
        reader!.close();
      }
    });

    it('lets a process out only through the egress proxy, on the same rules', async () => {
      const curl = (args: string) => sh(a.session_id, `curl -s -m 10 -o /dev/null -w '%{http_code}' ${args}; printf ' exit=%s' $?`);
      expect((await curl(`http://${PUBLIC}:8080/`)).stdout).toBe('200 exit=0');
      // A tunnel to a public address on a non-standard port is allowed; on port 25 it is refused.
      expect((await curl(`-p http://${PUBLIC}:8443/`)).stdout).toBe('200 exit=0');
      expect((await curl(`-p http://${PUBLIC}:25/`)).stdout).toMatch(/^(000|403) exit=56$/);
      expect((await curl(`http://${PRIVATE}:8080/`)).stdout).toBe('403 exit=0');
      // Around the proxy there is no route at all: the kernel refuses at once, nothing hangs.
      expect((await curl(`--noproxy '*' http://${PUBLIC}:8080/`)).stdout).toBe('000 exit=7');
      expect((await curl(`--noproxy '*' http://127.0.0.1:${sitePort}/`)).stdout).toBe('000 exit=7');
    });

    it("never reaches the service's port or another session's DevTools, by any way", async () => {
      const servicePort = new URL(svc.baseUrl).port;
      const devtoolsOfB = new URL(svc.sessions.get(b.session_id)!.chromium.wsEndpoint).port;
      for (const port of [servicePort, devtoolsOfB]) {
        const through = await sh(a.session_id, `curl -s -m 10 -D - -o /dev/null http://127.0.0.1:${port}/json/version`);
        expect(through.stdout).toMatch(/^HTTP\/1\.1 403/);
        expect(through.stdout).toMatch(/x-bcs-egress-refused: (service_port|private_address)/i);
        const direct = await sh(a.session_id, `curl -s -m 10 --noproxy '*' http://127.0.0.1:${port}/json/version; printf ' exit=%s' $?`);
        expect(direct.stdout).toBe(' exit=7');
      }
    });

    it('lets a browser reach what its network.private_hosts lists, and shows the list', async () => {
      const got = await svc.call('GET', `/browsers/${b.session_id}`);
      expect(got.body.network).toEqual({ private_hosts: ['10.222.0.0/24'] });
      const res = await sh(b.session_id, `curl -s -m 10 http://${PRIVATE}:8080/`);
      expect(res.stdout).toBe(`hello from ${PRIVATE}:8080`);
      // Listed private hosts never open the service's own ports.
      const service = await sh(b.session_id, `curl -s -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:${new URL(svc.baseUrl).port}/`);
      expect(service.stdout).toBe('403');
    });

    it('refuses an unusable network.private_hosts entry, naming it', async () => {
      const res = await svc.call('POST', '/browsers', { body: { network: { private_hosts: ['10.0.0.0/8', 'not a host!'] } } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('body.network.private_hosts[1]');
    });
  });

  describe('under the local-development policy', () => {
    let svc: TestService;
    let id: string;

    beforeAll(async () => {
      svc = await startTestService({ networkPolicy: 'local' });
      id = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body.session_id;
    });
    afterAll(async () => {
      await svc?.close();
    });

    it("reaches this host's loopback, but still never the service's port", async () => {
      const run = async (url: string) => {
        const res = await svc.call('POST', `/browsers/${id}/process/exec`, { body: { command: 'curl', args: ['-s', '-m', '10', '-w', ' %{http_code}', url] } });
        return unb64(res.body.stdout_b64);
      };
      expect(await run(`http://127.0.0.1:${sitePort}/`)).toBe('host loopback site 200');
      expect(await run(`http://localhost:${new URL(svc.baseUrl).port}/`)).toMatch(/ 403$/);
      expect(await run(`http://${PRIVATE}:8080/`)).toMatch(/ 403$/);
    });
  });

  describe('without the sandbox', () => {
    let svc: TestService;
    let browser: Browser;

    beforeAll(async () => {
      svc = await startTestService({ networkPolicy: 'hosted', sandbox: 'off' });
      const created = (await svc.call('POST', '/browsers', { body: { timeout_seconds: 600 } })).body;
      browser = await chromium.connectOverCDP(created.cdp_ws_url);
    });
    afterAll(async () => {
      await browser?.close().catch(() => undefined);
      await svc?.close();
    });

    it("still holds the browser's traffic to the policy, and says processes are not", async () => {
      expect(svc.isolation).toContain("share the host's network");
      const page = await browser.contexts()[0]!.newPage();
      expect((await page.goto(`http://${PUBLIC}:8080/`))!.status()).toBe(200);
      const refused = await page.goto(`http://${PRIVATE}:8080/`);
      expect(refused!.status()).toBe(403);
      expect(await refused!.headerValue('x-bcs-egress-refused')).toBe('private_address');
    });
  });
});

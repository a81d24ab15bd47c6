// The rest of Playwright's context options on a real app in real Chromium: HTTP credentials (the password a
// secret), scale factor, mobile, touch, screen, forced colours, contrast, CSP bypass, HTTPS errors, service
// workers, downloads, strict selectors, and a HAR of the traffic written into the scenario's artifacts.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepResult } from '../../runner/reporters/results.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';

const PAGE = `<!doctype html><title>home</title><button>one</button><button>two</button><a id=dl href=/file download>get</a>`;

const project = await inlineFiles({});
const web = appSuite((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  if (url.pathname === '/csp') return res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'none'" }).end('<title>csp</title>');
  if (url.pathname === '/sw.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end('');
  if (url.pathname === '/file') return res.writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename=a.csv' }).end('1,2');
  if (url.pathname === '/private') {
    const want = `Basic ${Buffer.from('ada:s3cret').toString('base64')}`;
    if (req.headers.authorization !== want) return res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end('no');
    return res.writeHead(200, { 'content-type': 'text/html' }).end('<title>private</title><h1>welcome ada</h1>');
  }
  res.writeHead(404).end('no');
});

// A self-signed certificate, for a server no browser trusts.
let tls: Server | undefined;
let tlsUrl = '';
beforeAll(async () => {
  const key = project.path('tls.key');
  const cert = project.path('tls.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  tls = createServer({ key: await readFile(key), cert: await readFile(cert) }, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>tls</title><h1>self-signed</h1>'));
  await new Promise<void>((r) => tls!.listen(0, '127.0.0.1', r));
  tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
});
afterAll(() => void tls?.close());

async function run(name: string, yaml: string, env: Record<string, string> = {}) {
  await project.write({ [`${name}.yaml`]: `name: ${name}\nbase_url: ${web.url()}\n${yaml}` });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], { ...web.env(), ...env });
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, out, main: (results.scenarios[0].steps as StepResult[]).filter((s) => s.phase === 'main') };
}

describe("Playwright's context options", { timeout: 120_000 }, () => {
  it('emulate the device, screen and media features; take credentials from a secret; bypass CSP; block service workers; strict selectors; refuse downloads', async () => {
    const { res, main } = await run('emulation', `secrets: { app_password: { env: APP_PASSWORD } }
context:
  viewport: { width: 400, height: 600 }
  screen: { width: 800, height: 1000 }
  device_scale_factor: 2
  is_mobile: true
  has_touch: true
  forced_colors: active
  contrast: more
  http_credentials: { username: ada, password: "{{ secrets.app_password }}", origin: "${web.url().slice(0, -1)}" }
  bypass_csp: true
  service_workers: block
  strict_selectors: true
  accept_downloads: false
steps:
  - goto: /
  - script:
      code: |
        const seen = await page.evaluate(async () => ({
          ratio: devicePixelRatio,
          touch: navigator.maxTouchPoints > 0,
          screen: [screen.width, screen.height],
          layout: innerWidth,
          forced: matchMedia('(forced-colors: active)').matches,
          more: matchMedia('(prefers-contrast: more)').matches,
          worker: (await navigator.serviceWorker.register('/sw.js')) === undefined ? 'blocked' : 'registered',
        }));
        const strict = await page.click('button', { timeout: 5000 }).then(() => 'clicked', (e) => e.message.includes('strict mode violation') ? 'strict' : e.message);
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#dl')]);
        return { ...seen, strict, download: await download.failure() };
      save: seen
  - goto: /csp
  - script: "await page.addScriptTag({ content: 'window.injected = 42' }); return await page.evaluate(() => window.injected)"
  - goto: /private
  - expect: { role: heading, text: welcome ada }
`, { APP_PASSWORD: 's3cret' });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    // Mobile: a page without a meta viewport is laid out 980 wide, as phones do.
    expect(main[1]!.output).toEqual({ ratio: 2, touch: true, screen: [800, 1000], layout: 980, forced: true, more: true, worker: 'blocked', strict: 'strict', download: expect.stringContaining('acceptDownloads: true') });
    expect(main[3]!.output).toBe(42);
  });

  it('without the credentials the page is refused; a self-signed certificate fails unless ignored', async () => {
    const refused = await run('no-credentials', `steps:\n  - goto: /private\n  - expect: { role: heading, text: welcome ada, timeout: 1s }\n`);
    expect(refused.res.code).toBe(1);
    const untrusted = await run('untrusted', `context: { locale: en-GB }\nsteps:\n  - goto: "${tlsUrl}"\n`);
    expect(untrusted.res.code).toBe(1);
    expect(untrusted.main[0]!.error!.message).toMatch(/ERR_CERT/);
    const ignored = await run('ignored', `context: { ignore_https_errors: true }\nsteps:\n  - goto: "${tlsUrl}"\n  - expect: { role: heading, text: self-signed }\n`);
    expect(ignored.res.code, ignored.res.stdout + ignored.res.stderr).toBe(0);
  });

  it('records the traffic as a HAR in the scenario artifacts, filtered by URL', async () => {
    const { res, out } = await run('har', `context: { record_har: { url_filter: "**/csp", content: embed } }\nsteps:\n  - goto: /\n  - goto: /csp\n`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const har = JSON.parse(await readFile(join(out, 'har', 'network.har'), 'utf8'));
    expect(har.log.entries.map((e: { request: { url: string }; response: { status: number; content: { text?: string } } }) => [e.request.url, e.response.status])).toEqual([[`${web.url()}csp`, 200]]);
  });
});

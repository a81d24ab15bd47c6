// `browser: { profile, extensions, proxy }` through `bcs run` against a real service, with the resources
// made by the admin commands: a profile carries a cookie from one run of a scenario to the next; an
// uploaded extension changes the page; a proxy selected by name carries the traffic. With `pool:` these
// are refused before anything runs.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSite, startTestProxy, type TestProxy, type TestSite } from '../service/proxies-fixtures.js';

const exe = await findChromium(process.env.BCS_CHROMIUM);
if (exe.headlessShell) console.log(`extension scenario skipped: ${exe.path} is the headless shell, which cannot load extensions`);

/** Counts visits in a persistent cookie (session cookies are never saved) and shows the count. */
const VISITS_PAGE = `<!doctype html><title>visits</title><body><h1 id="count"></h1><script>
  const seen = /(?:^|; )visits=(\\d+)/.exec(document.cookie);
  const visit = seen ? Number(seen[1]) + 1 : 1;
  document.cookie = 'visits=' + visit + '; max-age=3600; path=/';
  document.getElementById('count').textContent = 'visit ' + visit;
</script></body>`;

const PASSWORD = 'scenario-proxy-pw-7731';
const project = await inlineFiles({});
let svc: TestService;
let pageServer: Server;
let origin: string;
let site: TestSite;
let proxy: TestProxy;

beforeAll(async () => {
  pageServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(VISITS_PAGE));
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  site = await startSite();
  proxy = await startTestProxy({ username: 'agent', password: PASSWORD, hosts: { 'site.test': site.port } });
  svc = await startTestService({ standby: 0 });
});
afterAll(async () => {
  await svc.close();
  pageServer.close();
  await proxy.close();
  await site.close();
});

const target = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
const bcs = (args: string[], env: Record<string, string> = {}) => runCli(args, { ...target(), ...env });

/** Writes `yaml` and runs it through `bcs run`; the scenario's results come back with the exit. */
async function run(name: string, yaml: string, vars: Record<string, string> = {}): Promise<{ res: CliResult; scenario: any }> {
  await project.write({ [`${name}.yaml`]: yaml });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out-${Date.now()}`);
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]);
  const res = await bcs(['run', file, '--reporter', 'json', '--output-dir', out, ...varArgs]);
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8').catch(() => '{"scenarios":[]}'));
  return { res, scenario: results.scenarios[0] };
}

const VISITS = (profile: string) => `name: visits
vars: { origin: "", visit: "1" }
browser:
  headless: true
${profile}
steps:
  - goto: "{{ origin }}/"
  - expect: { text: "visit {{ visit }}", timeout: 5s }
`;

describe('a scenario with a profile', () => {
  it('sees in its second run the cookie its first run set, and only through the profile', { timeout: 180_000 }, async () => {
    const created = await bcs(['profiles', 'create', 'shopper']);
    expect(created.code, created.stderr).toBe(0);
    const yaml = VISITS('  profile: { name: shopper, save_changes: true }');

    const first = await run('visits', yaml, { origin, visit: '1' });
    expect(first.res.code, first.res.stdout + first.res.stderr).toBe(0);
    const second = await run('visits', yaml, { origin, visit: '2' });
    expect(second.res.code, second.res.stdout + second.res.stderr).toBe(0);
    expect(second.scenario.status).toBe('passed');

    // The same page without the profile starts from nothing: the count came from the profile.
    const fresh = await run('fresh', VISITS(''), { origin, visit: '1' });
    expect(fresh.res.code, fresh.res.stdout + fresh.res.stderr).toBe(0);
    // Loaded without save_changes, the profile gives its state but keeps none of the run's.
    const readOnly = VISITS('  profile: { name: shopper }');
    expect((await run('read-only', readOnly, { origin, visit: '3' })).res.code).toBe(0);
    expect((await run('read-only', readOnly, { origin, visit: '3' })).res.code).toBe(0);

    // A wrong expectation fails as an assertion, so the passes above mean what they say.
    const wrong = await run('visits', yaml, { origin, visit: '1' });
    expect(wrong.res.code).toBe(1);
    expect(wrong.scenario.steps.find((s: { status: string }) => s.status === 'failed').error.kind).toBe('assertion');

    const missing = await run('missing', VISITS('  profile: { name: nobody }'), { origin });
    expect(missing.res.code).toBe(3);
    const setup = missing.scenario.steps.find((s: { kind: string }) => s.kind === 'browser');
    expect(setup.error.message).toContain("profile 'nobody' not found");
  });
});

describe('a scenario with an extension and a proxy', () => {
  it.skipIf(exe.headlessShell)('loads an extension uploaded with bcs extensions upload, by name', async () => {
    await project.write({
      'retitle/manifest.json': JSON.stringify({
        manifest_version: 3, name: 'retitle', version: '1.0',
        content_scripts: [{ matches: ['<all_urls>'], js: ['content.js'], run_at: 'document_end' }],
      }),
      'retitle/content.js': "document.title = 'changed by extension';",
    });
    const dir = project.path('retitle');
    expect((await bcs(['extensions', 'upload', dir])).code).toBe(0);
    const { res } = await run('extension', `name: extension
vars: { origin: "" }
browser:
  extensions: [{ name: retitle }]
steps:
  - goto: "{{ origin }}/"
  - expect: { title: changed by extension, timeout: 10s }
`, { origin });
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('routes the browser through a proxy created with bcs proxies create, by name', async () => {
    const created = await bcs(
      ['proxies', 'create', '--name', 'corp', '--protocol', 'http', '--host', '127.0.0.1', '--port', String(proxy.port), '--username', 'agent', '--password-env', 'PROXY_PW'],
      { PROXY_PW: PASSWORD },
    );
    expect(created.code, created.stderr).toBe(0);
    const yaml = (selector: string) => `name: proxied
browser:
  proxy: ${selector}
steps:
  - goto: http://site.test/page
  - expect: { text: via-proxy }
`;
    const { res } = await run('proxied', yaml('{ name: corp }'));
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(proxy.accepted().some((s) => s.target === 'http://site.test/page')).toBe(true);
    // Direct, the made-up host does not resolve: the proxy was what reached it.
    expect((await run('direct', yaml('{ mode: direct }'))).res.code).toBe(1);
  });

  it('refuses them beside pool before anything runs, at file:line:col', async () => {
    await project.write({ 'leased.yaml': 'name: leased\nbrowser:\n  pool: warm\n  profile: { name: shopper }\nsteps:\n  - sleep: 1ms\n' });
    const file = project.path('leased.yaml');
    const res = await bcs(['validate', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:4:12 'profile' cannot be set on a lease`);
  });
});

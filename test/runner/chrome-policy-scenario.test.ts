// `browser: { chrome_policy }` in a scenario: the browser runs with the policies (here: no JavaScript),
// and a scenario of the same run without them gets a browser without them (sessions are shared only
// between equal configurations). A lease from a pool cannot set them.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PAGE = `data:text/html,<p id=p>static</p><script>document.getElementById('p').textContent='scripted'</script>`;

let svc: TestService;
let reason = '';
beforeAll(async () => {
  svc = await startTestService();
  if (!svc.sandbox) reason = `no sandbox here (${svc.sandboxReason}): the service cannot give a browser policies of its own`;
  else if (svc.chromium.headlessShell) reason = `${svc.chromium.path} is the headless shell, which reads no policies`;
  else if (!existsSync('/etc/chromium')) reason = 'no /etc/chromium to mount the policies over';
  if (reason) console.log(`chrome_policy scenarios skipped: ${reason}`);
});
afterAll(() => svc?.close());

describe('chrome_policy in a scenario', () => {
  it('runs the browser with its policies, and a scenario without them in a browser without them', async (ctx) => {
    if (reason) return ctx.skip();
    const project = await inlineFiles({
      'no-js.yaml': `name: no javascript
browser:
  chrome_policy: { DefaultJavaScriptSetting: 2 }
steps:
  - goto: "${PAGE}"
  - expect: { text: static }
`,
      'with-js.yaml': `name: javascript
steps:
  - goto: "${PAGE}"
  - expect: { text: scripted }
`,
    });
    const res = await project.run(['run', '.', '--reporter', 'list,json', '--output-dir', 'out'], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.stderr + res.stdout).toContain('2 passed, 0 failed');
    expect(res.code).toBe(0);
    const results = JSON.parse(await readFile(join(project.dir, 'out', 'results.json'), 'utf8'));
    const ids = results.scenarios.map((s: { session_id: string }) => s.session_id);
    expect(new Set(ids).size).toBe(2);
    const noJs = results.scenarios.find((s: { name: string }) => s.name === 'no javascript');
    const session = await svc.call('GET', `/browsers/${noJs.session_id}?include_deleted=true`);
    expect(session.body.chrome_policy).toEqual({ DefaultJavaScriptSetting: 2 });
  });

  it('is refused on a lease from a pool, before anything runs', async () => {
    const project = await inlineFiles({
      'lease.yaml': `name: lease
browser:
  pool: shared
  chrome_policy: { DefaultJavaScriptSetting: 2 }
steps:
  - goto: "about:blank"
`,
    });
    const res = await project.run(['validate', 'lease.yaml'], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(2);
    expect(res.stdout + res.stderr).toMatch(/lease\.yaml:\d+:\d+.*chrome_policy/);
  });
});

// The `script` step: JavaScript the runner runs on the scenario's own page, so what it sets up (a route, a
// dialog handler) acts on the later steps; its result is saved and reported; its mistakes are located.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const run = (name: string, yaml: string) => runScenarioYaml(project.dir, name, yaml, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

describe('script steps', { timeout: 120_000 }, () => {
  it('set up routes and dialog handlers that later steps meet, and save what they return', async () => {
    const { res, main } = await run('routes', `name: routes
base_url: http://app.test/
vars:
  shown: from the route
steps:
  - script: |
      await page.route('**/api/items', (route) => route.fulfill({ json: { items: ['a', 'b', 'c'] } }));
      await page.route('http://app.test/', (route) => route.fulfill({ contentType: 'text/html', body:
        '<title>app</title><p id=n></p><button onclick="confirm(\\'sure?\\') && (n.textContent = \\'confirmed\\')">go</button>' +
        '<script>fetch("/api/items").then((r) => r.json()).then((j) => document.title = j.items.length + " items")</script>' }));
      page.once('dialog', (d) => d.accept());
  - goto: /
  - expect: { title: 3 items }
  - click: { role: button, name: go }
  - expect: { text: confirmed }
  - script: { code: "return { title: await page.title(), shown: vars.shown }", save: seen }
  - exec: { command: echo, args: ["{{ seen.title }} / {{ seen.shown }}"], expect: { stdout: "3 items / from the route" } }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main[5]!.output).toEqual({ title: '3 items', shown: 'from the route' });
    expect(main[0]!.name).toBe("script await page.route('**/api/items', (route) => route.fulfill({ …");
  });

  it('a script that throws fails its step with the line inside the script; one that does not compile fails validation', async () => {
    const { res, main, file } = await run('throws', `name: throws
steps:
  - goto: "data:text/html,<title>t</title>"
  - script: |
      const title = await page.title();
      throw new Error('not the page I wanted: ' + title);
`);
    expect(res.code).toBe(1);
    expect(main[1]!.error).toEqual({ kind: 'step', message: 'not the page I wanted: t (at line 2 of the script)', location: `${file}:4:5` });

    await project.write({ 'bad.yaml': 'name: bad\nsteps:\n  - script: "return await page.title("\n' });
    const bad = project.path('bad.yaml');
    const valid = await runCli(['validate', bad]);
    expect(valid.code).toBe(2);
    expect(valid.stderr).toContain(`${bad}:3:13 the script does not compile: `);
  });
});

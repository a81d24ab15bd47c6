// The page's size with a `context:` block, as `use: { viewport }` sets it in Playwright: the context's own
// `viewport` when it has one, else the browser's `viewport` (a context block about something else, such as
// the locale, does not reset the page to Playwright's default 1280×720).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SIZE = `<!doctype html><title>size</title><p id=size></p>
<script>document.getElementById('size').textContent = innerWidth + 'x' + innerHeight</script>`;

const project = await inlineFiles({ 'site/index.html': SIZE });
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const run = (name: string, head: string, size: string) =>
  runScenarioYaml(project.dir, name, `name: ${name}\nserve: site\n${head}steps:\n  - goto: /index.html\n  - expect: { selector: "#size", text: "${size}" }\n`, {
    BCS_BASE_URL: svc.baseUrl,
    BCS_API_KEY: svc.apiKey,
  });

describe('the viewport with a context block', { timeout: 120_000 }, () => {
  it("keeps the browser's viewport when the context does not set one", async () => {
    const { res } = await run('browser-viewport', 'browser: { viewport: { width: 900, height: 700 } }\ncontext: { locale: de-DE }\n', '900x700');
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it("takes the context's viewport over the browser's", async () => {
    const { res } = await run('context-viewport', 'browser: { viewport: { width: 900, height: 700 } }\ncontext: { locale: de-DE, viewport: { width: 600, height: 500 } }\n', '600x500');
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });
});

// The page's size with a `context:` block, as `use: { viewport }` sets it in Playwright: the context's own
// `viewport` when it has one, else the browser's `viewport` (a context block about something else, such as
// the locale, does not reset the page to Playwright's default 1280×720).
import { describe, expect, it } from 'vitest';
import { siteSuite } from '../helpers/site-suite.js';

const SIZE = `<!doctype html><title>size</title><p id=size></p>
<script>document.getElementById('size').textContent = innerWidth + 'x' + innerHeight</script>`;

const site = await siteSuite({ 'site/index.html': SIZE });

const run = (name: string, head: string, size: string) => site.runSteps(name, `  - expect: { selector: "#size", text: "${size}" }\n`, head);

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

// `switch_page` right after the step that opened a page acts on that page, however late the browser
// reports it: a link to a page whose server answers late (Playwright reports a popup only once its first
// navigation commits) is clicked and switched to, by index fifty times over, by title and URL five.
import { describe, expect, it } from 'vitest';
import { runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';

const OPENER = `<!doctype html><title>Opener</title><h1>Opener</h1>
<a href="/late" target="_blank">late page</a>
<button onclick="window.open('/late?by=script')">open by script</button>`;

/**
 * How long the popup's server takes to answer. Not what the test waits on: switch_page must wait however
 * long it takes; this only makes sure the page is still unreported when a racing switch_page looks.
 */
const ANSWER_AFTER_MS = 150;

const project = await inlineFiles({});
const web = appSuite((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(OPENER);
  if (url.pathname === '/late') {
    const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Late</title><h1>Late page</h1>'), ANSWER_AFTER_MS);
    res.on('close', () => clearTimeout(timer));
    return;
  }
  res.writeHead(404).end('no');
});

const run = (name: string, steps: string) =>
  runScenarioYaml(project.dir, name, `name: ${name}\nbase_url: ${web.url()}\ntimeout: 10s\nsteps:\n${steps}`, web.env());

describe('switch_page after the step that opened a page', { timeout: 300_000 }, () => {
  it('acts on the new page by index, title and url, every time', async () => {
    const { res, main } = await run('popups', `  - goto: /
  - repeat:
      times: 50
      steps:
        - click: { role: link, name: late page }
        - switch_page: { index: -1 }
        - expect: { role: heading, text: Late page, timeout: 2s }
        - close_page: true
  - repeat:
      times: 5
      steps:
        - click: { role: button, name: open by script }
        - switch_page: { title: Late }
        - expect: { role: heading, text: Late page, timeout: 2s }
        - close_page: true
        - click: { role: link, name: late page }
        - switch_page: { url: { contains: /late } }
        - expect: { role: heading, text: Late page, timeout: 2s }
        - close_page: true
        - switch_page: { index: 0 }
        - expect: { role: heading, text: Opener, timeout: 2s }
`);
    const failed = main.filter((s) => s.status === 'failed');
    expect(failed.map((s) => `${s.name}${s.iteration ? ` (pass ${s.iteration})` : ''}: ${s.error?.message.split('\n')[0]}`), res.stdout + res.stderr).toEqual([]);
    expect(res.code).toBe(0);
    expect(main.filter((s) => s.status === 'passed' && s.name === 'expect role=heading text "Late page"')).toHaveLength(60);
  });
});

// `expect` on a real page: every element condition passing and negated, locators narrowed by filters,
// containers and frames, and failures in Playwright's words (locator, expected, received, call log).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteSuite } from '../helpers/site-suite.js';

const PAGE = `<!doctype html><title>Todos</title>
<ul data-testid=list><li>milk</li><li class=done>bread</li><li>eggs</li></ul>
<p role=status>3 items left</p>
<label>New <input value=tea></label>
<label><input type=checkbox checked> all done</label>
<button disabled>Save</button>
<a href=/cart title=Cart style="color: rgb(255, 0, 0)">cart</a>
<img alt=Logo src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<div hidden>secret</div>
<iframe srcdoc="<button>Pay</button>"></iframe>`;

// For axe: a page with nothing to report, and one with a critical and a serious violation.
const GOOD = `<!doctype html><html lang=en><title>Good</title><main><h1>Good</h1><label>Name <input></label></main></html>`;
const BAD = `<!doctype html><html lang=en><title>Bad</title><main><h1>Bad</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p style="color:#777;background:#888">faint</p></main></html>`;

const site = await siteSuite({ 'site/index.html': PAGE, 'site/good.html': GOOD, 'site/bad.html': BAD });

const run = site.runSteps;

describe('expect on elements', { timeout: 120_000 }, () => {
  it('checks text, count, value, attributes, css and states, negated too, through filters, containers and frames', async () => {
    const { res } = await run('passing', `  - expect: { role: status, text: 3 items left }
  - expect: { role: status, text: { contains: items }, visible: true }
  - expect: { role: status, text: { matches: "^\\\\d+ items" } }
  - expect: { test_id: list, within: body, has_text: bread, count: 1 }
  - expect: { role: listitem, count: 3 }
  - expect: { role: listitem, has_text: bread, attribute: { name: class, value: done } }
  - expect: { role: listitem, last: true, text: eggs }
  - expect: { role: listitem, nth: 1, text: bread }
  - expect: { role: listitem, within: { test_id: list }, has_not_text: milk, count: 2 }
  - expect: { label: New, value: tea, enabled: true, editable: true, focused: false }
  - expect: { role: checkbox, checked: true }
  - expect: { role: button, name: Save, disabled: true }
  - expect: { title: Todos, text: 3 items left }
  - expect: { role: link, attribute: { name: href }, css: { property: color, value: "rgb(255, 0, 0)" }, in_viewport: true }
  - expect: { alt: Logo, visible: true }
  - expect: { selector: "div[hidden]", hidden: true }
  - expect: { role: button, frame: iframe, text: Pay }
  - expect: { role: listitem, count: 4, not: true }
  - expect: { text: nothing like this, not: true }
  - expect: { role: status, text: 2 items left, not: true }
  - expect:
      test_id: list
      aria_snapshot: |
        - list:
          - listitem: milk
          - listitem: /br.ad/
  - expect: { aria_snapshot: '- status: 3 items left' }
  - expect: { role: status, aria_snapshot: '- status: 0 items left', not: true }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it("fails with Playwright's message: the locator, expected and received values, and the call log", async () => {
    const { res, main, file } = await run('failing', `  - expect: { role: status, text: 2 items left, timeout: 300ms }
    continue_on_error: true
  - expect: { role: listitem, count: 2, timeout: 300ms }
    continue_on_error: true
  - click: { role: button, name: Missing }
    timeout: 300ms
`);
    expect(res.code).toBe(1);
    const [text, count, click] = main.slice(1);
    expect(text!.error).toMatchObject({ kind: 'assertion', location: `${file}:5:5` });
    expect(text!.error!.message.split('\n')[0]).toBe('expected role=status to have text "2 items left", got "3 items left" (waited 300 ms)');
    expect(text!.error!.message).toContain("Locator:  getByRole('status')");
    expect(text!.error!.message).toContain('Expected: "2 items left"');
    expect(text!.error!.message).toContain('Received: "3 items left"');
    expect(text!.error!.message).toMatch(/Call log:\n\s+- Expect "toHaveText"/);
    expect(count!.error!.message).toMatch(/Expected: 2\nReceived: 3/);
    // An action that finds nothing keeps Playwright's call log: what it waited for.
    expect(click!.error!.message).toContain("waiting for getByRole('button', { name: 'Missing' })");
    expect(res.stdout).toContain('Received: "3 items left"');
  });

  it('an aria snapshot that does not match shows the template against the tree, line by line', async () => {
    const { res, main } = await run('aria', `  - expect:
      test_id: list
      aria_snapshot: |
        - list:
          - listitem: milk
          - listitem: butter
      timeout: 300ms
`);
    expect(res.code).toBe(1);
    expect(main[1]!.error!.message).toBe([
      'expected test_id="list" to match the aria snapshot (waited 300 ms)',
      '- Expected',
      '+ Received',
      '',
      '  - list:',
      '    - listitem: milk',
      '-   - listitem: butter',
      '+   - listitem: bread',
      '+   - listitem: eggs',
    ].join('\n'));
  });

  it('audits with axe-core: a clean page passes; violations at or above the impact fail, listed, with the results kept', async () => {
    const { res, main, out } = await run('axe', `  - goto: /good.html
  - expect_accessible:
  - goto: /bad.html
  - expect_accessible: critical
    continue_on_error: true
  - expect_accessible: { exclude: [img], disable_rules: [color-contrast] }
  - expect_accessible: { impact: serious }
`);
    expect(res.code).toBe(1);
    const [, , clean, , critical, excluded, serious] = main;
    expect(clean!.status).toBe('passed');
    expect(critical!.error!.message).toMatch(/^1 accessibility violation of critical impact or worse:\n  image-alt \(critical\): Images must have alternative text; 1 element: img\n    https:\/\/dequeuniversity\.com\/rules\/axe\/[\d.]+\/image-alt/);
    expect(excluded!.status).toBe('passed');
    expect(serious!.error!.message).toMatch(/^2 accessibility violations of serious impact or worse:\n/);
    expect(serious!.error!.message).toContain('color-contrast (serious)');
    const report = JSON.parse(await readFile(join(out, serious!.artifacts[0]!.path), 'utf8'));
    expect(report.violations.map((v: { id: string }) => v.id).sort()).toEqual(['color-contrast', 'image-alt']);
  });
});

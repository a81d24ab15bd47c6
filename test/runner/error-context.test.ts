// A step that looks for an element and fails says which Playwright call failed (`dblclick`, not `click`)
// and keeps what Playwright Test's error context keeps: the page's accessibility tree at that moment, as a
// file among the step's artifacts and in the HTML report, cut short on a page too big to read.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../../runner/reporters/results.js';
import { SNAPSHOT_MAX_LINES } from '../../runner/exec/error-context.js';
import { runCli } from '../helpers/cli.js';
import { siteSuite } from '../helpers/site-suite.js';

const PAGE = `<!doctype html><title>Shop</title><h1>Basket</h1>
<ul><li>milk</li><li>bread</li></ul>
<button>Save</button><button>Cancel</button>
<iframe srcdoc="<h2>Payment</h2><button>Pay now</button>"></iframe>`;
const LONG = `<!doctype html><title>Long</title><ul>${Array.from({ length: 1000 }, (_, i) => `<li>item ${i}</li>`).join('')}</ul>`;

const site = await siteSuite({ 'site/index.html': PAGE, 'site/long.html': LONG });

async function run(name: string, steps: string) {
  const { project } = site;
  await project.write({ [`${name}.yaml`]: `name: ${name}\nserve: site\nsteps:\n  - goto: /index.html\n${steps}` });
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', project.path(`${name}.yaml`), '--reporter', 'list,json,html', '--output-dir', out], site.env());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  const main = (results.scenarios[0].steps as StepResult[]).filter((s) => s.phase === 'main');
  return { res, out, main, html: await readFile(join(out, 'report.html'), 'utf8') };
}

const contextOf = (step: StepResult) => step.artifacts.find((a) => a.type === 'error_context');

describe('the error context of a failed step', { timeout: 120_000 }, () => {
  it('names the Playwright call and keeps the page tree for a missing and an ambiguous element', async () => {
    const { res, out, main, html } = await run('missing', `  - click: { role: button, name: Buy, click_count: 2 }
    timeout: 300ms
    continue_on_error: true
  - click: { role: button }
    continue_on_error: true
  - expect: { role: button, frame: iframe, name: Pay later, visible: true, timeout: 300ms }
    continue_on_error: true
  - expect: { role: heading, text: Basket }
`);
    expect(res.code).toBe(0);
    const [, missing, ambiguous, inFrame, passed] = main;
    expect(missing!.error!.message.split('\n')[0]).toBe('locator.dblclick: Timeout 300ms exceeded.');
    expect(ambiguous!.error!.message).toContain('strict mode violation');
    for (const step of [missing!, ambiguous!]) {
      const artifact = contextOf(step);
      expect(artifact, JSON.stringify(step.artifacts)).toBeDefined();
      const text = await readFile(join(out, artifact!.path), 'utf8');
      expect(text).toContain(step.error!.message.split('\n')[0]);
      expect(text).toContain('- heading "Basket" [level=1]');
      expect(text).toContain('- button "Save"');
      expect(text).toContain('- listitem: milk');
      // In the report, under the step, as text.
      expect(html).toContain(`<a href="${artifact!.path.split('/').map(encodeURIComponent).join('/')}">`);
    }
    expect(html).toContain('- button &#34;Cancel&#34;');
    // Inside a frame: the frame's tree, which the page's does not include.
    const framed = await readFile(join(out, contextOf(inFrame!)!.path), 'utf8');
    expect(framed).toContain('- button "Pay now"');
    expect(framed).not.toContain('Basket');
    // A step that passed, or looked for no element, keeps no tree.
    expect(passed!.artifacts).toEqual([]);
  });

  it('cuts a long page short, saying how much it left out', async () => {
    const { out, main } = await run('long', `  - goto: /long.html
  - click: { role: button, name: Nowhere }
    timeout: 300ms
`);
    const text = await readFile(join(out, contextOf(main[2]!)!.path), 'utf8');
    expect(text).toContain('- listitem: item 0');
    expect(text).not.toContain('item 999');
    expect(text).toMatch(/# … \d+ more lines left out/);
    expect(text.split('\n').length).toBeLessThan(SNAPSHOT_MAX_LINES + 20);
  });
});

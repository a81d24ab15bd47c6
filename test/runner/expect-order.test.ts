// An `expect` with several conditions checks them in the order written, each waiting as Playwright's
// assertions wait: a list that shrinks from two items to one a moment after a filter is clicked passes
// `count: 1, text: ...` as one step just as it does as two. A condition that finds two elements where it
// needs one fails at once, and says so, with the elements it found.
import { describe, expect, it } from 'vitest';
import { siteSuite } from '../helpers/site-suite.js';

// The filter shows its result later than the click returns, as an app waiting on its server does.
const TODOS = `<!doctype html><title>Todos</title>
<ul id=todo-list><li>buy milk</li><li class=done>buy bread</li></ul>
<button onclick="setTimeout(() => document.querySelector('li.done').remove(), 1000)">Active</button>`;

const site = await siteSuite({ 'site/index.html': TODOS });

const run = site.runSteps;

describe('expect with several conditions', { timeout: 120_000 }, () => {
  it('checks them in the order written, as the same checks written as steps', async () => {
    // The first expect loads Playwright Test, which takes longer than the list does to shrink.
    const { res, main } = await run('in-order', `  - expect: { title: Todos }
  - click: { role: button, name: Active }
  - expect: { selector: "#todo-list li", count: 1, text: buy milk }
  - goto: /index.html
  - click: { role: button, name: Active }
  - expect: { selector: "#todo-list li", count: 1 }
  - expect: { selector: "#todo-list li", text: buy milk }
`);
    expect(main.map((s) => s.error?.message ?? 'passed'), res.stdout + res.stderr).toEqual(Array(main.length).fill('passed'));
    expect(main[3]!.name).toBe('expect #todo-list li count 1, text "buy milk"');
  });

  it('a condition that finds two elements where it needs one fails at once, naming them', async () => {
    const { res, main } = await run('strict', `  - expect: { selector: "#todo-list li", text: buy milk, timeout: 5s }
    continue_on_error: true
  - click: "#todo-list li"
`);
    expect(res.code).toBe(1);
    const message = main[1]!.error!.message;
    const [summary] = message.split('\n');
    expect(summary, message).not.toMatch(/waited|resolved to 2 elements:$/);
    expect(summary).toBe(
      'expected #todo-list li to have text "buy milk": strict mode violation: locator(\'#todo-list li\') resolved to 2 elements: ' +
        "1) <li>buy milk</li> aka getByText('buy milk'), 2) <li class=\"done\">buy bread</li> aka getByText('buy bread')",
    );
    // An action's strict-mode failure, too, names the elements on its first line.
    expect(main[2]!.error!.message.split('\n')[0]).toBe(
      "locator.click: Error: strict mode violation: locator('#todo-list li') resolved to 2 elements: " +
        "1) <li>buy milk</li> aka getByText('buy milk'), 2) <li class=\"done\">buy bread</li> aka getByText('buy bread')",
    );
  });
});

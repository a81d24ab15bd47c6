// What a Playwright Test user writes in one line, as steps on a real page: history navigation, keyboard
// input on whatever has focus, the assertions beyond the basic ones, getByRole's options, context options
// and checks on saved values. One served site, many steps per run.
import { describe, expect, it } from 'vitest';
import { siteSuite } from '../helpers/site-suite.js';

const INDEX = `<!doctype html><title>Home</title>
<a href=/two.html>two</a>
<p id=loads></p>
<script>loads.textContent = 'loads ' + (sessionStorage.loads = +(sessionStorage.loads ?? 0) + 1)</script>
<label>Search <input id=q></label>
<p id=typed></p>
<script>q.addEventListener('keydown', (e) => { if (e.key === 'Enter') typed.textContent = 'searched ' + q.value })</script>`;
const TWO = `<!doctype html><title>Two</title><p>page two</p>`;

const site = await siteSuite({ 'site/index.html': INDEX, 'site/two.html': TWO });

describe('Playwright parity on a real page', { timeout: 120_000 }, () => {
  it('goes back, forward and reloads', async () => {
    const { res } = await site.runSteps('history', `  - expect: { selector: "#loads", text: loads 1 }
  - click: { role: link, name: two }
  - expect: { title: Two }
  - go_back: true
  - expect: { title: Home }
  - go_forward: { wait_until: domcontentloaded }
  - expect: { title: Two }
  - go_back:
  - reload: true
  - expect: { selector: "#loads", text: { matches: "loads [2-9]" } }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('types and presses keys on whatever has focus', async () => {
    const { res, main } = await site.runSteps('keyboard', `  - focus: { label: Search }
  - type: milk
  - type: { value: " and tea", delay: 5ms }
  - press: Enter
  - expect: { selector: "#typed", text: searched milk and tea }
  - press: { key: Control+A, label: Search }
  - press: Backspace
  - expect: { label: Search, value: "" }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main.map((s) => s.name).slice(2, 5)).toEqual(['type "milk"', 'type " and tea"', 'press Enter']);
  });
});

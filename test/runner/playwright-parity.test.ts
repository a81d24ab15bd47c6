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

const CHECKS = `<!doctype html><title>Checks</title>
<ul><li class="todo done">milk</li><li class=todo>bread</li><li class="todo done big">eggs</li></ul>
<button id=save-btn aria-label="Save to disk" aria-describedby=tip>💾</button><span id=tip>Writes the file</span>
<label>Email <input aria-invalid=true aria-errormessage=err></label><span id=err>Not an email</span>
<label>Colours <select multiple><option value=red selected>Red</option><option value=green selected>Green</option><option value=blue>Blue</option></select></label>
<div data-testid=panel role=region aria-label=Panel data-state=open>panel</div>
<template><p>inert</p></template>
<h1>One</h1><h2>Two</h2>
<button aria-pressed=true>Bold</button><button aria-pressed=false onclick="this.setAttribute('aria-pressed', 'true')">Italic</button>
<button aria-expanded=false>More</button>
<div style="display:none" data-testid=ghost>ghost</div>`;

const site = await siteSuite({ 'site/index.html': INDEX, 'site/two.html': TWO, 'site/checks.html': CHECKS });

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

  it("checks list texts and classes, id, accessible name and description, role, a property, values and attachment with Playwright's matchers", async () => {
    const { res, main } = await site.runSteps('checks', `  - goto: /checks.html
  - expect: { role: listitem, text: [milk, bread, { matches: "^e.gs$" }] }
  - expect: { role: listitem, text: { contains: [mil, egg] } }
  - expect: { role: listitem, text: [milk, eggs], not: true }
  - expect: { role: listitem, class: ["todo done", todo, { matches: big }] }
  - expect: { role: listitem, class: { contains: [done, todo, big] } }
  - expect: { role: listitem, first: true, class: "todo done", id: "", attached: true }
  - expect: { role: listitem, last: true, class: { contains: "big done" } }
  - expect: { role: listitem, nth: 1, class: { contains: done }, not: true }
  - expect: { role: button, name: Save to disk, id: save-btn, accessible_description: Writes the file, aria_role: button }
  - expect: { selector: "#save-btn", accessible_name: { contains: disk }, accessible_description: { matches: "^Writes" } }
  - expect: { label: Email, accessible_error_message: Not an email, aria_role: textbox }
  - expect: { label: Colours, values: [red, { matches: "^gr" }] }
  - expect: { test_id: panel, js_property: { name: tagName, value: DIV }, aria_role: region }
  - expect: { label: Colours, js_property: { name: multiple, value: true } }
  - expect: { test_id: ghost, attached: true, hidden: true }
  - expect: { selector: template p, attached: false }
  - expect: { role: heading, level: 2, text: Two }
  - expect: { role: button, pressed: true, text: Bold }
  - expect: { role: button, expanded: false, text: More }
  - click: { role: button, name: Italic, pressed: false }
  - expect: { role: button, pressed: true, count: 2 }
  - expect: { role: listitem, text: [milk, bread], timeout: 300ms }
    continue_on_error: true
  - expect: { role: listitem, nth: 1, class: { contains: done }, timeout: 300ms }
    continue_on_error: true
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const [texts, klass] = main.slice(-2);
    expect(texts!.error!.message.split('\n')[0]).toMatch(/^expected role=listitem to have texts \["milk", "bread"\]/);
    expect(texts!.error!.message).toMatch(/Call log:\n\s+- Expect "toHaveText"/);
    expect(klass!.error!.message.split('\n')[0]).toMatch(/^expected role=listitem >> nth=1 to contain class "done", got "todo"/);
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

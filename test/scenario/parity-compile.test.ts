// Steps and options that bring the language level with Playwright Test, in the plan: history navigation,
// keyboard input without a target, the further assertions, getByRole's options and checks on saved values.
import { describe, expect, test } from 'vitest';
import type { Plan } from '../../src/scenario/index.js';
import { errors, main, op, plan } from '../helpers/compile-steps.js';

const checksOf = (p: Plan, i: number) => (op(p, i) as { checks?: unknown }).checks;

describe('keyboard', () => {
  test('type without a locator types into whatever has focus; with one, into the element', () => {
    const p = plan('  - type: hello\n  - type: { value: 42, delay: 20ms }\n  - type: { label: Q, value: x }\n  - press: { key: Enter, label: Q }\n');
    expect(main(p).map((s) => [s.name, s.operations[0]])).toEqual([
      ['type "hello"', { op: 'page', action: 'type', text: 'hello' }],
      ['type "42"', { op: 'page', action: 'type', text: '42', delay_ms: 20 }],
      ['type "x" into label="Q"', { op: 'page', action: 'type', target: { label: 'Q' }, text: 'x' }],
      ['press Enter', { op: 'page', action: 'press', key: 'Enter', target: { label: 'Q' } }],
    ]);
  });
});

describe('expect: the further assertions', () => {
  test('list forms of text and class, id, accessible name and description, role, a property, values, attached', () => {
    const p = plan(`  - expect:
      role: listitem
      text: [milk, { matches: "^br" }]
      class: { contains: [done] }
  - expect: { role: listitem, text: { contains: [mi, eg] }, class: [a, { matches: b }] }
  - expect: { test_id: x, class: { contains: "done big" }, id: { matches: "^x" }, accessible_name: Save, accessible_description: { contains: disk }, accessible_error_message: bad }
  - expect: { test_id: x, aria_role: button, js_property: { name: dataset, value: { a: "1" } }, values: [r, { matches: g }], attached: false }
`);
    expect(checksOf(p, 0)).toEqual([
      { check: 'texts', items: ['milk', { matches: '^br' }] },
      { check: 'classes', items: ['done'], contains: true },
    ]);
    expect(checksOf(p, 1)).toEqual([
      { check: 'texts', items: ['mi', 'eg'], contains: true },
      { check: 'classes', items: ['a', { matches: 'b' }] },
    ]);
    expect(checksOf(p, 2)).toEqual([
      { check: 'class', match: { contains: 'done big' } },
      { check: 'id', match: { matches: '^x' } },
      { check: 'accessible_name', match: { equals: 'Save' } },
      { check: 'accessible_description', match: { contains: 'disk' } },
      { check: 'accessible_error_message', match: { equals: 'bad' } },
    ]);
    expect(checksOf(p, 3)).toEqual([
      { check: 'role', role: 'button' },
      { check: 'js_property', name: 'dataset', value: { a: '1' } },
      { check: 'values', items: ['r', { matches: 'g' }] },
      { check: 'state', state: 'attached', is: false },
    ]);
    expect(main(p).map((s) => s.name)).toEqual([
      'expect role=listitem texts ["milk", /^br/], classes containing ["done"]',
      'expect role=listitem texts containing ["mi", "eg"], classes ["a", /b/]',
      'expect test_id="x" class contains "done big", id matches /^x/, accessible name "Save", accessible description contains "disk", accessible error message "bad"',
      'expect test_id="x" aria role button, property dataset {"a":"1"}, values ["r", /g/], not attached',
    ]);
  });

  test('a list of texts needs a locator; a bad pattern in a list is reported where it is', () => {
    expect(errors('  - expect: { text: [a, b] }\n')).toEqual(['3:21 a list of texts checks the elements a locator finds, one text each: add a locator (role, test_id, label, placeholder, alt or selector)']);
    expect(errors('  - expect: { aria_role: button }\n')[0]).toMatch(/'aria_role' checks an element: add a locator/);
    expect(errors('  - expect: { role: listitem, text: [a, { matches: "(" }] }\n')[0]).toBe('3:52 invalid regular expression: Invalid regular expression: /(/: Unterminated group');
    expect(errors('  - expect: { role: listitem, class: { contains: [{ matches: a }] } }\n')).not.toEqual([]);
  });
});

describe("getByRole's options", () => {
  test('level, pressed, expanded, selected, checked, disabled and include_hidden locate; in an expect, checked and disabled check', () => {
    const p = plan('  - click: { role: button, name: Bold, pressed: true, disabled: false, include_hidden: true }\n  - expect: { role: checkbox, expanded: false, checked: true }\n  - expect: { role: heading, level: 2, text: Two }\n');
    expect((op(p, 0) as { target?: unknown }).target).toEqual({ role: 'button', name: 'Bold', pressed: true, disabled: false, include_hidden: true });
    expect(main(p)[1]!.name).toBe('expect role=checkbox[expanded=false] checked');
    expect(main(p)[2]!.name).toBe('expect role=heading[level=2] text "Two"');
    expect(errors('  - click: { text: Bold, pressed: true }\n')).not.toEqual([]);
  });
});

describe('navigation', () => {
  test('go_back, go_forward and reload, with or without wait_until', () => {
    const p = plan('  - go_back: true\n  - go_forward:\n  - reload: { wait_until: networkidle }\n');
    expect(main(p).map((s) => [s.name, s.operations[0]])).toEqual([
      ['go back', { op: 'page', action: 'go_back' }],
      ['go forward', { op: 'page', action: 'go_forward' }],
      ['reload', { op: 'page', action: 'reload', wait_until: 'networkidle' }],
    ]);
  });

  test('an unknown wait is refused where it is written', () => {
    expect(errors('  - reload: { wait_until: idle }\n')[0]).toBe("3:27 steps[0].reload.wait_until must be one of load, domcontentloaded, networkidle, commit");
  });
});

// `expect` in the plan: page conditions, element conditions on a narrowed locator, and what needs what.
import { describe, expect, test } from 'vitest';
import type { Plan } from '../../src/scenario/index.js';
import { errors, main, op, plan } from '../helpers/compile-steps.js';

describe('expect', () => {
  test('with a locator, text and states check the element; the locator is narrowed as written', () => {
    const p = plan('  - expect: { role: listitem, has_text: milk, within: { test_id: list }, nth: -1, text: { contains: "1 item" }, checked: false, enabled: true }\n');
    expect(op(p)).toEqual({
      op: 'page', action: 'expect',
      element: { role: 'listitem', within: { test_id: 'list' }, has_text: 'milk', nth: -1 },
      checks: [
        { check: 'text', match: { contains: '1 item' } },
        { check: 'state', state: 'checked', is: false },
        { check: 'state', state: 'enabled', is: true },
      ],
    });
    expect(main(p)[0]!.name).toBe('expect test_id="list" >> role=listitem >> has_text="milk" >> nth=-1 text contains "1 item", not checked, enabled');
  });

  test('count, value, attribute, css, visible: false, not, and a frame', () => {
    const p = plan([
      '  - expect: { test_id: row, count: 3, not: true }',
      '  - expect: { label: Email, frame: [iframe#outer, iframe.inner], value: { matches: "@" } }',
      '  - expect: { role: link, attribute: { name: href, value: /cart }, css: { property: color, value: "rgb(0, 0, 0)" }, visible: false }',
      '',
    ].join('\n'));
    expect(op(p, 0)).toMatchObject({ element: { test_id: 'row' }, checks: [{ check: 'count', count: 3 }], not: true });
    expect(op(p, 1)).toMatchObject({ element: { label: 'Email', frame: ['iframe#outer', 'iframe.inner'] }, checks: [{ check: 'value', match: { matches: '@' } }] });
    expect((op(p, 2) as { checks?: unknown }).checks).toEqual([
      { check: 'attribute', name: 'href', match: { equals: '/cart' } },
      { check: 'css', property: 'color', match: { equals: 'rgb(0, 0, 0)' } },
      { check: 'state', state: 'visible', is: false },
    ]);
  });

  test('conditions keep the order written, page-wide ones too, an element\'s checks at the place of its first', () => {
    const counted = op(plan('  - expect: { selector: "#todo-list li", count: 1, text: buy milk }\n')) as { checks?: unknown };
    expect(counted.checks).toEqual([{ check: 'count', count: 1 }, { check: 'text', match: { equals: 'buy milk' } }]);
    const mixed = op(plan('  - expect: { url: { contains: /cart }, role: status, text: "1 item", title: Cart, visible: true }\n'));
    expect(Object.keys(mixed)).toEqual(['op', 'action', 'url', 'element', 'checks', 'title']);
    const page = op(plan('  - expect: { title: Home, text: Hello, url: { contains: /home } }\n'));
    expect(Object.keys(page)).toEqual(['op', 'action', 'title', 'text', 'url']);
  });

  test('without a locator, text is page-wide and title the page title, as before', () => {
    const p = plan('  - expect: { text: Hello, title: { contains: Home }, visible: { role: button, name: Go } }\n');
    expect(op(p)).toEqual({ op: 'page', action: 'expect', text: 'Hello', title: { contains: 'Home' }, visible: { role: 'button', name: 'Go' } });
  });

  test('element checks without a locator, two positions, and nothing to check are reported where written', () => {
    expect(errors('  - expect: { count: 2 }\n')).toEqual(["3:22 'count' checks an element: add a locator (role, test_id, label, placeholder, alt or selector)"]);
    expect(errors('  - expect: { role: row, nth: 1, last: true, count: 1 }\n')).toEqual(['3:40 use one of nth, first and last, not nth and last']);
    expect(errors('  - expect: { role: row, url: /x }\n')).toEqual([
      '3:13 an element expectation needs something to check: text, visible, count, value, attribute, css, class, id, accessible_name, aria_role, js_property, values, aria_snapshot, or a state such as enabled or checked',
    ]);
  });

  test('locators work in every step that takes a target', () => {
    const p = plan('  - click: { alt: Logo, frame: iframe }\n  - fill: { title: Search, value: x }\n');
    expect(op(p, 0)).toMatchObject({ action: 'click', target: { alt: 'Logo', frame: ['iframe'] } });
    expect(op(p, 1)).toMatchObject({ action: 'fill', target: { title: 'Search' } });
  });
});

describe('expect_screenshot', () => {
  test('the baseline lives beside the scenario file; element, masks and thresholds pass through', () => {
    const p = plan('  - expect_screenshot: home\n  - expect_screenshot: { name: card, element: { test_id: card }, mask: [".ad", { role: timer }], threshold: 0.1, max_diff_pixels: 3 }\n');
    expect(op(p, 0)).toMatchObject({ action: 'expect_screenshot', name: 'home', scenario_file: expect.stringMatching(/\/t\.yaml$/), snapshot_dir: expect.stringMatching(/\/t\.yaml-snapshots$/) });
    expect(op(p, 1)).toMatchObject({
      element: { test_id: 'card' }, mask: [{ selector: '.ad' }, { role: 'timer' }], threshold: 0.1, max_diff_pixels: 3,
    });
    expect(main(p).map((s) => s.name)).toEqual(['expect the page to look like home.png', 'expect the element to look like card.png']);
  });

  test('a name that is not a plain file name, and full_page on an element, are refused', () => {
    expect(errors('  - expect_screenshot: ../escape\n')).toEqual(["3:24 steps[0].expect_screenshot must be the baseline's file name without `.png`: letters, digits, `.`, `_` and `-` (or a template)"]);
    expect(errors('  - expect_screenshot: { name: a, element: "#x", full_page: true }\n')).toEqual([
      "3:61 'full_page' is for the page: an element's screenshot is the element, whole",
    ]);
  });
});

describe('expect on a value (var)', () => {
  const valueOp = (p: Plan, i = 0) => main(p)[i]!.operations[0];

  test("a saved value is read when the step runs; a variable's value is known now; every matcher is kept, in order", () => {
    const p = plan([
      '  - script: { code: "return { items: [{ name: \'a\' }] }", save: r }',
      '  - expect: { var: "r.result.items[0].name", equals: a, matches: "^a$", length: 1, truthy: true }',
      '  - expect: { var: "{{ limit }}", greater_than: 2, less_than_or_equal: 10, not: true }',
      '  - expect: { var: r.result.missing, defined: false }',
      '',
    ].join('\n'), 'vars: { limit: 5 }\n');
    expect(valueOp(p, 1)).toEqual({ op: 'expect_value', var: 'r.result.items[0].name', checks: [{ equals: 'a' }, { matches: '^a$' }, { length: 1 }, { truthy: true }] });
    expect(main(p)[1]!.name).toBe('expect r.result.items[0].name equals "a", matches /^a$/, length 1, truthy');
    expect(valueOp(p, 2)).toEqual({ op: 'expect_value', var: 'limit', value: '5', checks: [{ greater_than: 2 }, { less_than_or_equal: 10 }], not: true });
    expect(main(p)[2]!.name).toBe('expect limit ("5") not greater than 2, less than or equal 10');
    expect(valueOp(p, 3)).toEqual({ op: 'expect_value', var: 'r.result.missing', checks: [{ defined: false }] });
  });

  test('a scenario whose expects are all on values gets no browser', () => {
    const p = plan('  - expect: { var: n, contains: "3" }\n', 'vars: { n: "3" }\n');
    expect(p.steps.filter((s) => s.phase === 'setup').map((s) => s.kind)).not.toContain('browser');
  });

  test('page checks beside var, a matcher without var, no matcher, a timeout, an unknown name, a bad pattern: errors at the field', () => {
    expect(errors('  - expect: { var: nothing_saved, equals: 1 }\n')[0]).toMatch(/^3:20 unknown variable 'nothing_saved'/);
    expect(errors('  - expect: { equals: 1 }\n')).toContain("3:15 steps[0].expect: 'equals' is only allowed together with 'var'");
    expect(errors([
      '  - script: { code: "return 1", save: r }',
      '  - expect: { var: r.result, text: hi }',
      '  - expect: { var: r.result }',
      '  - expect: { var: r.result, equals: 1, timeout: 5s }',
      '  - expect: { var: r.result, matches: "(" }',
      '',
    ].join('\n'))).toEqual([
      "4:36 'text' checks the page; an expect with 'var' checks a value, with equals, contains, matches, greater_than, greater_than_or_equal, less_than, less_than_or_equal, length, truthy, falsy, defined",
      '5:13 an expect on a value needs a matcher: equals, contains, matches, greater_than, greater_than_or_equal, less_than, less_than_or_equal, length, truthy, falsy, defined',
      "6:50 a value is checked once, not waited for: to poll it, put the steps that produce it and this expect in a retry block with a 'timeout'",
      '7:39 invalid regular expression: Invalid regular expression: /(/: Unterminated group',
    ]);
  });
});

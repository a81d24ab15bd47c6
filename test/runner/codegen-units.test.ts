// The recorder's jsonl actions as scenario steps (src/recorder/translate.ts), and the file they make:
// every YAML written here must load and validate as a scenario.
import { describe, expect, it } from 'vitest';
import { loadScenarioSource, validateScenario } from '../../src/scenario/index.js';
import { Recording, keyName, targetOf, translate, type RecordedAction } from '../../src/recorder/translate.js';
import { scenarioYaml } from '../../src/recorder/scenario-file.js';
import { startUrl } from '../../src/recorder/start-url.js';

const P = 'page@1';
const role = (body: string, name?: string, exact = false) => ({ kind: 'role', body, options: { attrs: [], exact, ...(name !== undefined ? { name } : {}) } });
const act = (a: Partial<RecordedAction> & { name: string }): RecordedAction => ({ pageGuid: P, signals: [], ...a });

describe('locators', () => {
  it('takes the getters the recorder picks', () => {
    expect(targetOf(role('button', 'Greet'))).toEqual({ role: 'button', name: 'Greet' });
    expect(targetOf(role('button', 'Greet', true))).toEqual({ role: 'button', name: 'Greet', exact: true });
    expect(targetOf({ kind: 'label', body: 'Colour', options: { exact: false } })).toEqual({ label: 'Colour' });
    expect(targetOf({ kind: 'placeholder', body: 'Email', options: { exact: true } })).toEqual({ placeholder: 'Email', exact: true });
    expect(targetOf({ kind: 'text', body: 'Hello' })).toEqual({ text: 'Hello' });
    expect(targetOf({ kind: 'test-id', body: 'go', options: {} })).toEqual({ test_id: 'go' });
    expect(targetOf({ kind: 'alt', body: 'Logo' })).toEqual({ alt: 'Logo' });
    expect(targetOf({ kind: 'default', body: '#save' })).toEqual({ selector: '#save' });
  });

  it('says filters, chains and frames with nth, has_text, within and frame', () => {
    expect(targetOf({ ...role('button', 'Remove'), next: { kind: 'nth', body: '1' } })).toEqual({ role: 'button', name: 'Remove', nth: 1 });
    expect(targetOf({ ...role('link'), next: { kind: 'first', body: '' } })).toEqual({ role: 'link', first: true });
    expect(targetOf({ kind: 'default', body: 'li', options: { hasText: 'milk' } })).toEqual({ selector: 'li', has_text: 'milk' });
    expect(targetOf({ ...role('listitem'), next: { kind: 'has-text', body: 'milk', next: role('button', 'Remove') } })).toEqual({
      role: 'button',
      name: 'Remove',
      within: { role: 'listitem', has_text: 'milk' },
    });
    const framed = { kind: 'default', body: 'iframe[name="pay"]', next: { kind: 'frame', body: '', next: { kind: 'label', body: 'Card' } } };
    expect(targetOf(framed)).toEqual({ label: 'Card', frame: 'iframe[name="pay"]' });
    const twice = { kind: 'default', body: '#outer', next: { kind: 'frame', body: '', next: framed } };
    expect(targetOf(twice)).toEqual({ label: 'Card', frame: ['#outer', 'iframe[name="pay"]'] });
  });

  it('leaves to the selector what the fields cannot say', () => {
    expect(targetOf({ ...role('checkbox', 'x'), options: { attrs: [{ name: 'checked', value: true }], name: 'x' } })).toBeUndefined();
    expect(targetOf({ kind: 'text', body: {} })).toBeUndefined(); // a regular expression, lost by JSON
    expect(targetOf({ ...role('button'), next: { kind: 'or', body: '{}' } })).toBeUndefined();
    const { steps } = translate([act({ name: 'click', selector: 'internal:role=button >> internal:or=x', locator: { ...role('button'), next: { kind: 'or', body: '' } } })], 'http://a/');
    expect(steps[1]).toEqual({ click: 'internal:role=button >> internal:or=x' });
  });

  it('names keys with their modifiers', () => {
    expect(keyName('Enter')).toBe('Enter');
    expect(keyName('a', 2 | 8)).toBe('Control+Shift+a');
  });
});

describe('actions', () => {
  const url = 'http://localhost:3000/form.html';
  const name = role('textbox', 'Your name');

  it('turns a recorded flow into steps: goto, fill (without the click into the field), select, check, press, click', () => {
    const recorded: RecordedAction[] = [
      act({ name: 'openPage', url: 'about:blank' }),
      act({ name: 'navigate', url }),
      act({ name: 'click', selector: 's1', locator: name, button: 'left', clickCount: 1, modifiers: 0 }),
      act({ name: 'fill', selector: 's1', locator: name, text: 'Ada' }),
      act({ name: 'select', selector: 's2', locator: { kind: 'label', body: 'Colour', options: { exact: false } }, options: ['b'] }),
      act({ name: 'select', selector: 's3', locator: { kind: 'label', body: 'Tags', options: {} }, options: ['x', 'y'] }),
      act({ name: 'check', selector: 's4', locator: role('checkbox', 'I agree') }),
      act({ name: 'uncheck', selector: '#news', locator: { kind: 'default', body: '#news' } }),
      act({ name: 'press', selector: 's1', locator: name, key: 'Enter', modifiers: 0 }),
      act({ name: 'click', selector: 's5', locator: { kind: 'test-id', body: 'go' }, button: 'left', clickCount: 1, modifiers: 0 }),
      act({ name: 'click', selector: 's5', locator: { kind: 'test-id', body: 'go' }, button: 'right', clickCount: 1, modifiers: 0 }),
      act({ name: 'click', selector: 's5', locator: { kind: 'test-id', body: 'go' }, button: 'left', clickCount: 2, modifiers: 0 }),
      act({ name: 'setInputFiles', selector: 's6', locator: { kind: 'label', body: 'Photo' }, files: ['a.png'] }),
      act({ name: 'navigate', url: 'http://localhost:3000/about.html' }),
    ];
    expect(translate(recorded, url)).toEqual({
      steps: [
        { goto: url },
        { fill: { role: 'textbox', name: 'Your name', value: 'Ada' } },
        { select: { label: 'Colour', option: 'b' } },
        { select: { label: 'Tags', option: ['x', 'y'] } },
        { check: { role: 'checkbox', name: 'I agree' } },
        { uncheck: '#news' },
        { press: { key: 'Enter', role: 'textbox', name: 'Your name' } },
        { click: { test_id: 'go' } },
        { click: { test_id: 'go', button: 'right' } },
        { click: { test_id: 'go', click_count: 2 } },
        { set_input_files: { label: 'Photo', files: ['a.png'] } },
        { goto: 'http://localhost:3000/about.html' },
      ],
      skipped: [],
    });
  });

  it('keeps one fill for a field typed into again (the last value), and two for two fields', () => {
    const other = role('textbox', 'Email');
    const { steps } = translate(
      [
        act({ name: 'fill', selector: 's1', locator: name, text: 'Ad' }),
        act({ name: 'click', selector: 's1', locator: name, button: 'left', clickCount: 1, modifiers: 0 }),
        act({ name: 'fill', selector: 's1', locator: name, text: 'Ada' }),
        act({ name: 'fill', selector: 's2', locator: other, text: 'a@b.c' }),
        act({ name: 'fill', selector: 's1', locator: name, text: 'Ada L' }),
      ],
      url,
    );
    expect(steps.slice(1)).toEqual([
      { fill: { role: 'textbox', name: 'Your name', value: 'Ada' } },
      { fill: { role: 'textbox', name: 'Email', value: 'a@b.c' } },
      { fill: { role: 'textbox', name: 'Your name', value: 'Ada L' } },
    ]);
  });

  it("turns the assert tools' actions into expect steps", () => {
    const status = role('status');
    const { steps } = translate(
      [
        act({ name: 'assertText', selector: 's', locator: status, text: 'Hello, Ada!', substring: true }),
        act({ name: 'assertText', selector: 's', locator: status, text: 'Hello, Ada!', substring: false }),
        act({ name: 'assertText', selector: 'internal:text="Hello"i', locator: { kind: 'text', body: 'Hello' }, text: 'Hello', substring: true }),
        act({ name: 'assertValue', selector: 's', locator: name, value: 'Ada' }),
        act({ name: 'assertChecked', selector: 's', locator: role('checkbox', 'I agree'), checked: true }),
        act({ name: 'assertVisible', selector: 's', locator: role('heading', 'Order') }),
        act({ name: 'assertSnapshot', selector: 's', locator: role('heading', 'Order'), ariaSnapshot: '- heading "Order" [level=1]' }),
      ],
      url,
    );
    expect(steps.slice(1)).toEqual([
      { expect: { role: 'status', text: { contains: 'Hello, Ada!' } } },
      { expect: { role: 'status', text: 'Hello, Ada!' } },
      // `text` is the check in an element expect, so an element found by text keeps the recorder's selector
      { expect: { selector: 'internal:text="Hello"i', text: { contains: 'Hello' } } },
      { expect: { role: 'textbox', name: 'Your name', value: 'Ada' } },
      { expect: { role: 'checkbox', name: 'I agree', checked: true } },
      { expect: { role: 'heading', name: 'Order', visible: true } },
      { expect: { role: 'heading', name: 'Order', aria_snapshot: '- heading "Order" [level=1]' } },
    ]);
  });

  it('follows popups with switch_page and close_page, and waits for downloads', () => {
    const link = role('link', 'Help');
    const { steps } = translate(
      [
        act({ name: 'openPage', url: 'about:blank' }),
        act({ name: 'navigate', url }),
        act({ name: 'click', selector: 's', locator: link, button: 'left', clickCount: 1, modifiers: 0, signals: [{ name: 'popup', popupPageGuid: 'page@2' }] }),
        act({ name: 'click', selector: 't', locator: role('link', 'Export'), pageGuid: 'page@2', button: 'left', clickCount: 1, modifiers: 0, signals: [{ name: 'download', downloadAlias: 'download' }] }),
        act({ name: 'closePage', pageGuid: 'page@2' }),
        act({ name: 'click', selector: 'u', locator: role('button', 'Done'), button: 'left', clickCount: 1, modifiers: 0 }),
      ],
      url,
    );
    expect(steps).toEqual([
      { goto: url },
      { click: { role: 'link', name: 'Help' } },
      { switch_page: { index: 1 } },
      { click: { role: 'link', name: 'Export' } },
      { wait_for_download: null },
      { close_page: true },
      { click: { role: 'button', name: 'Done' } },
    ]);
  });

  it('counts switch_page indexes among the open pages, and closes a page the steps are not on by going to it', () => {
    const click = (pageGuid: string, name: string, popup?: string) =>
      act({ name: 'click', pageGuid, selector: name, locator: role('button', name), button: 'left', clickCount: 1, modifiers: 0, signals: popup ? [{ name: 'popup', popupPageGuid: popup }] : [] });
    const { steps } = translate(
      [click(P, 'a', 'page@2'), click(P, 'b', 'page@3'), act({ name: 'closePage', pageGuid: 'page@2' }), click('page@3', 'c'), click(P, 'd')],
      url,
    );
    expect(steps.slice(1)).toEqual([
      { click: { role: 'button', name: 'a' } },
      { click: { role: 'button', name: 'b' } },
      { switch_page: { index: 1 } },
      { close_page: true },
      { click: { role: 'button', name: 'c' } }, // the newest open page, where close_page left the run
      { switch_page: { index: 0 } },
      { click: { role: 'button', name: 'd' } },
    ]);
  });

  it('lists what no step says, such as a click with a modifier held', () => {
    const { steps, skipped } = translate([act({ name: 'click', selector: '#a', locator: { kind: 'default', body: '#a' }, button: 'left', clickCount: 1, modifiers: 8 })], url);
    expect(steps).toEqual([{ goto: url }]);
    expect(skipped).toEqual(['click on #a']);
  });

  it('keeps the last update of an action (typing grows one fill) and adds signals to it', () => {
    const r = new Recording();
    r.added(act({ name: 'fill', selector: 's', locator: name, text: 'A' }));
    r.updated(act({ name: 'fill', selector: 's', locator: name, text: 'Ada' }));
    r.signal({ name: 'download' });
    expect(r.actions).toEqual([act({ name: 'fill', selector: 's', locator: name, text: 'Ada', signals: [{ name: 'download' }] })]);
  });
});

describe('the scenario file', () => {
  it('is a valid scenario with the schema line, the browser header and one-line steps', () => {
    const frame = { label: 'Card', frame: ['#outer', 'iframe'] };
    const { steps } = translate(
      [
        act({ name: 'fill', selector: 's', locator: role('textbox', 'Your name'), text: 'Ada "the first"\nLovelace' }),
        act({ name: 'click', selector: 's', locator: { ...role('listitem'), next: { kind: 'has-text', body: 'milk', next: role('button', 'Remove') } }, button: 'left', clickCount: 1, modifiers: 0 }),
        act({ name: 'fill', selector: 's', locator: { kind: 'default', body: '#outer', next: { kind: 'frame', body: '', next: { kind: 'default', body: 'iframe', next: { kind: 'frame', body: '', next: { kind: 'label', body: 'Card' } } } } }, text: '4242' }),
        act({ name: 'assertSnapshot', selector: 's', locator: role('list'), ariaSnapshot: '- list:\n  - listitem: milk' }),
      ],
      'https://example.com/',
    );
    expect(steps[3]).toEqual({ fill: { ...frame, value: '4242' } });
    const text = scenarioYaml({ name: 'example.com', file: '/w/scenarios/rec.yaml', schemaPath: '/w/src/scenario/scenario.schema.json', viewport: { width: 1280, height: 800 }, steps, skipped: ['click on #a'] });
    expect(text.split('\n').slice(0, 7)).toEqual([
      '# yaml-language-server: $schema=../src/scenario/scenario.schema.json',
      '# Recorded but not written as steps (add them by hand):',
      '#   click on #a',
      'name: example.com',
      'browser:',
      '  headless: true',
      '  viewport: { width: 1280, height: 800 }',
    ]);
    expect(text).toContain('  - goto: https://example.com/\n');
    expect(text).toContain('  - click: { role: button, name: Remove, within: { role: listitem, has_text: milk } }\n');
    const loaded = loadScenarioSource('rec.yaml', text);
    expect(validateScenario(loaded)).toEqual([]);
    expect((loaded.data as { steps: unknown[] }).steps).toEqual(steps);
  });

  it('has no schema line when it has no known place (a file the service answers, downloaded anywhere)', () => {
    const text = scenarioYaml({ name: 'order', viewport: { width: 1024, height: 700 }, steps: [{ goto: 'https://example.com/' }] });
    expect(text).toBe('name: order\nbrowser:\n  headless: true\n  viewport: { width: 1024, height: 700 }\nsteps:\n  - goto: https://example.com/\n');
    expect(validateScenario(loadScenarioSource('order.yaml', text))).toEqual([]);
  });

  it('skips a recorded action that has no target rather than failing the whole recording', () => {
    const { steps, skipped } = translate([{ name: 'click', pageGuid: 'p1' }], 'https://example.com/');
    expect(steps).toEqual([{ goto: 'https://example.com/' }]);
    expect(skipped).toEqual(['click']);
  });
});

describe('the start URL', () => {
  it('takes http, https and file URLs, and gives a bare host http', () => {
    expect(startUrl('https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(startUrl('localhost:3000/login')).toBe('http://localhost:3000/login');
    expect(startUrl('example.com')).toBe('http://example.com/');
    expect(startUrl('file:///tmp/page.html')).toBe('file:///tmp/page.html');
    expect(() => startUrl('ftp://example.com/')).toThrow("'ftp://example.com/': codegen records http, https and file pages");
    expect(() => startUrl('http://')).toThrow("'http://' is not a URL");
  });
});

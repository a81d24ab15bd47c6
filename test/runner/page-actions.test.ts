// Page actions a Playwright user reaches for, on a real page: hover, check/uncheck, select, typing key by
// key, focus, scrolling, drag and drop and choosing files next to the scenario.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runScenarioYaml } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const PAGE = `<!doctype html><title>actions</title>
<style>#menu ul { display: none } #menu:hover ul { display: block } #end { margin-top: 3000px }</style>
<div id=menu>Menu<ul><li><a href=#settings>Settings</a></li></ul></div>
<label><input type=checkbox id=terms> I agree</label>
<label><input type=checkbox id=news checked> News</label>
<label>Colour <select id=colour><option value=r>Red</option><option value=b>Blue</option></select></label>
<label>Search <input id=q onkeydown="keys.textContent = +keys.textContent + 1"></label><span id=keys>0</span>
<div id=src draggable=true ondragstart="event.dataTransfer.setData('text', 'x')">drag me</div>
<div id=bin ondragover="event.preventDefault()" ondrop="event.preventDefault(); this.textContent = 'dropped'">bin</div>
<label>Photo <input type=file id=photo multiple onchange="document.getElementById('chosen').textContent = [...this.files].map((f) => f.name).join(',')"></label><span id=chosen></span>
<p id=end>the end</p>`;

const project = await inlineFiles({ 'site/index.html': PAGE, 'a.txt': 'a', 'b.txt': 'b' });
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

const run = (name: string, yaml: string) => runScenarioYaml(project.dir, name, yaml, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

describe('page actions', { timeout: 120_000 }, () => {
  it('hover, check, uncheck, select, type, focus, scroll, drag and choose files', async () => {
    const { res, main } = await run('actions', `name: actions
serve: site
steps:
  - goto: /index.html
  - hover: "#menu"
  - expect: { role: link, name: Settings, visible: true }
  - check: { label: I agree }
  - uncheck: { label: News }
  - expect: { label: I agree, checked: true }
  - expect: { label: News, checked: false }
  - select: { label: Colour, option: Blue }
  - expect: { label: Colour, value: b }
  - type: { label: Search, value: abc, delay: 10ms }
  - expect: { selector: "#keys", text: "3" }
  - focus: { label: Search }
  - expect: { label: Search, focused: true, value: abc }
  - scroll_into_view: { text: the end }
  - expect: { selector: "#end", in_viewport: true }
  - drag: { from: { text: drag me }, to: "#bin" }
  - expect: { selector: "#bin", text: dropped }
  - set_input_files: { label: Photo, files: [a.txt, b.txt] }
  - expect: { selector: "#chosen", text: "a.txt,b.txt" }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main.map((s) => s.name)).toContain('select "Blue" in label="Colour"');
    expect(main.map((s) => s.name)).toContain('set files of label="Photo": a.txt, b.txt');
  });

  it('a file to choose that is not there fails validation where it is named', async () => {
    await project.write({ 'missing.yaml': 'name: missing\nsteps:\n  - set_input_files: { label: Photo, files: [nope.png] }\n' });
    const file = project.path('missing.yaml');
    const res = await runCli(['validate', file]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}:3:46 no such file: ${project.path('nope.png')}`);
  });
});

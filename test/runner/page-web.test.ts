// Pages and traffic on a real app: popups and tabs, dialogs answered as declared, routes that fulfil,
// abort and change requests, HTTP requests that share the page's cookies, and waiting for a response.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../../runner/reporters/results.js';
import { runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { appSuite } from '../helpers/app-suite.js';

const HOME = `<!doctype html><title>home</title>
<a href="/help" target="_blank">help</a>
<button id=del onclick="document.getElementById('out').textContent = confirm('Delete everything?') ? 'deleted' : 'kept'">delete</button>
<button id=ask onclick="document.getElementById('out').textContent = prompt('Your name?')">ask</button>
<button id=load onclick="fetch('/api/items').then((r) => r.json()).then((j) => document.getElementById('out').textContent = j.items.join(','), () => document.getElementById('out').textContent = 'offline')">load</button>
<p id=out></p>`;

const project = await inlineFiles({ 'items.json': JSON.stringify({ items: ['from', 'a', 'file'] }) });
const web = appSuite((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=abc123; Path=/' }).end(HOME);
  if (url.pathname === '/help') return res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Help</title><h1>How to</h1>');
  if (url.pathname === '/api/items') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: ['real'] }));
  if (url.pathname === '/api/whoami') {
    return res.writeHead(200, { 'content-type': 'application/json', 'x-seen': req.headers['x-extra'] ?? '' })
      .end(JSON.stringify({ cookie: req.headers.cookie ?? '', method: req.method, extra: req.headers['x-extra'] ?? null }));
  }
  res.writeHead(404).end('no');
});

async function run(name: string, steps: string, head = '') {
  await project.write({ [`${name}.yaml`]: `name: ${name}\nbase_url: ${web.url()}\n${head}steps:\n  - goto: /\n${steps}` });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json', '--output-dir', out], web.env());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, file, main: (results.scenarios[0].steps as StepResult[]).filter((s) => s.phase === 'main') };
}

describe('pages and traffic', { timeout: 120_000 }, () => {
  it('switches to a popup and back, and answers dialogs as declared', async () => {
    const { res } = await run('pages', `  - click: { role: link, name: help }
  - switch_page: { title: Help }
  - expect: { role: heading, text: How to }
  - close_page: true
  - expect: { title: home }
  - dialog: { accept: true, message: { contains: Delete } }
  - click: "#del"
  - expect: { selector: "#out", text: deleted }
  - dialog: dismiss
  - click: "#del"
  - expect: { selector: "#out", text: kept }
  - dialog: { accept: true, prompt_text: Ada }
  - click: "#ask"
  - expect: { selector: "#out", text: Ada }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('a dialog saying something else fails the step that opened it', async () => {
    const { res, main, file } = await run('wrong-dialog', `  - dialog: { accept: true, message: Are you sure? }
  - click: "#del"
`);
    expect(res.code).toBe(1);
    expect(main[2]!.error).toEqual({ kind: 'assertion', location: `${file}:6:5`, message: 'expected a confirm dialog saying "Are you sure?", got "Delete everything?" (dismissed it)' });
  });

  it('routes fulfil, abort and change requests until removed; waits for the response a step caused', async () => {
    const { res, main } = await run('routes', `  - route: { url: "**/api/items", fulfill: { json: { items: [x, y] } }, times: 1 }
  - click: "#load"
  - wait_for_response: { url: "**/api/items", status: 200, expect: { json: { path: "$.items[0]", equals: x } }, save: items }
  - expect: { selector: "#out", text: "x,y" }
  - exec: { command: echo, args: ["{{ items.json.items[1] }}"], expect: { stdout: "y" } }
  - route: { url: "**/api/items", fulfill: { file: items.json } }
  - click: "#load"
  - expect: { selector: "#out", text: "from,a,file" }
  - unroute: "**/api/items"
  - route: { url: { matches: "/api/items$" }, abort: true }
  - click: "#load"
  - expect: { selector: "#out", text: offline }
  - unroute: all
  - click: "#load"
  - expect: { selector: "#out", text: real }
  - route: { url: "**/api/whoami", headers: { x-extra: added } }
  - request: { url: /api/whoami, expect: { status: 200, headers: { x-seen: "" } }, save: direct }
  - script: "await page.evaluate(() => fetch('/api/whoami'))"
  - wait_for_response: { url: "**/api/whoami", save: routed }
  - exec: { command: echo, args: ["{{ routed.json.extra }}"], expect: { stdout: added } }
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main[3]!.output).toMatchObject({ status: 200, text: '{"items":["x","y"]}' });
  });

  it('HTTP requests carry the context cookies and check status, headers and JSON', async () => {
    const { res, main } = await run('requests', `  - request:
      method: POST
      url: /api/whoami
      json: { a: 1 }
      expect: { status: 200, headers: { content-type: { contains: json } }, json: [{ path: $.cookie, equals: sid=abc123 }, { path: $.method, equals: POST }] }
      save: me
  - exec: { command: echo, args: ["{{ me.json.cookie }} {{ me.status }}"], expect: { stdout: "sid=abc123 200" } }
  - request: { url: /api/whoami, expect: { status: 201 } }
`);
    expect(res.code).toBe(1);
    expect(main.at(-1)!.error!.message).toBe('expected status equals 201, got 200');
  });

  it('a context made with Playwright options: device, locale, timezone, colour scheme, headers, geolocation; storage state saved and loaded', async () => {
    const saved = await run('save-state', `  - script: "await page.evaluate(() => localStorage.setItem('cart', '3 items'))"
  - save_storage_state: state/shopper.json
`);
    expect(saved.res.code, saved.res.stdout + saved.res.stderr).toBe(0);
    const { res, main } = await run('context', `  - script:
      code: |
        return await page.evaluate(async () => ({
          width: screen.width,
          touch: navigator.maxTouchPoints > 0,
          language: navigator.language,
          zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          dark: matchMedia('(prefers-color-scheme: dark)').matches,
          cart: localStorage.getItem('cart'),
          where: await new Promise((ok) => navigator.geolocation.getCurrentPosition((p) => ok([p.coords.latitude, p.coords.longitude]), (e) => ok(e.message))),
          seen: await (await fetch('/api/whoami')).json(),
        }));
      save: seen_env
`, `context:
  device: Pixel 7
  locale: de-DE
  timezone: Europe/Berlin
  color_scheme: dark
  extra_headers: { x-extra: from-context }
  geolocation: { latitude: 52.52, longitude: 13.4 }
  permissions: [geolocation]
  storage_state: state/shopper.json
`);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(main[1]!.output).toMatchObject({
      width: 412, touch: true, language: 'de-DE', zone: 'Europe/Berlin', dark: true, cart: '3 items', where: [52.52, 13.4], seen: { extra: 'from-context' },
    });
  });
});

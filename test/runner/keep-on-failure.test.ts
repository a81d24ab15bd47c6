// `bcs run --keep-on-failure` against a real service (`--base-url`): failed scenarios leave their browsers kept at
// the failing step (two that shared a session each in its own: a kept session is not handed on; one with a
// session and a context of its own), with the step and message as the reason; the run says so in one line per
// browser, in results.json, the HTML report and the result it reports to /runs. A new client finds the page
// where the step left it and `exec` runs in the session; DELETE releases one, the service's clock (injected)
// ends the others at `until`. A passing scenario keeps nothing; the embedded service refuses the flag.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let site: Server;
let siteUrl: string;
let svc: TestService;
/** How far the service's clock is ahead of the wall's. */
let ahead = 0;

beforeAll(async () => {
  site = createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    if (req.url === '/home') return void res.end('<!doctype html><title>ok</title><h1>Home</h1>');
    const who = new URL(req.url ?? '/', 'http://x').searchParams.get('who');
    // Pay moves the page on without loading another (the failing step's URL is only the page's own).
    res.end(`<!doctype html><title>Checkout</title><h1>Checkout for ${who}</h1>
<button onclick="history.pushState({}, '', '/paying/${who}'); document.title = 'Paying'">Pay</button>`);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  svc = await startTestService({ now: () => new Date(Date.now() + ahead) });
});
afterAll(async () => {
  site.close();
  await svc?.close();
});

const checkout = (name: string, who: string, extra = '') =>
  `name: ${name}\n${extra}steps:\n  - goto: "{{ site }}/checkout?who=${who}"\n  - click: { role: button, name: Pay }\n  - expect: { title: Paid, timeout: 300ms }\n`;

const project = await inlineFiles({
  '1-shared.yaml': checkout('shared fails', 'one'),
  '2-shared.yaml': checkout('shared fails too', 'two'),
  // A session of its own (a name is the scenario's), and a context of its own in it.
  '3-own.yaml': checkout('own fails', 'three', 'browser: { name: own-kept }\ncontext: { locale: de-DE }\n'),
  '4-passes.yaml': 'name: passes\nsteps:\n  - goto: "{{ site }}/home"\n  - expect: { title: ok }\n',
});

interface Kept {
  session_id: string;
  live_view_url: string;
  until: string;
}

describe('bcs run --keep-on-failure', { timeout: 240_000 }, () => {
  it('keeps each failed scenario\'s browser at its failing step, says where, and releases nothing that passed', async () => {
    const out = project.path('out');
    const res = await project.run(
      [
        'run', '1-shared.yaml', '2-shared.yaml', '3-own.yaml', '4-passes.yaml', '--var', `site=${siteUrl}`, '--keep-on-failure', '15m',
        '--reporter', 'list,json,html', '--output-dir', out, '--report-to', svc.baseUrl, '--suite', 'keep',
      ],
      { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, BCS_RUN_ID: 'run-42' },
    );
    expect(res.code, res.stderr).toBe(1);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    const byName = (name: string) => results.scenarios.find((s: { name: string }) => s.name === name);
    const failed = ['shared fails', 'shared fails too', 'own fails'];
    const kept: Kept[] = failed.map((name) => byName(name).kept_session);
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    // ajv-formats is CommonJS: its default export arrives as the module object or the function itself.
    (((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(join(ROOT, 'runner/results.schema.json'), 'utf8')));
    expect(validate(results), JSON.stringify(validate.errors)).toBe(true);

    // Prepared by the run: two contexts of a shared session, one session of the scenario's own.
    const modes = failed.map((name) => byName(name).steps.find((s: { kind: string }) => s.kind === 'browser').output.mode);
    expect(modes).toEqual(['shared', 'shared', 'own']);
    // Three browsers, none handed on to a later scenario; the passing one's session is gone as ever.
    expect(new Set(kept.map((k) => k.session_id)).size).toBe(3);
    const passed = byName('passes');
    expect(passed.kept_session).toBeUndefined();
    expect(kept.map((k) => k.session_id)).not.toContain(passed.session_id);
    expect((await svc.call('GET', `/browsers/${passed.session_id}?include_deleted=true`)).body.end_reason).toBe('deleted');

    const listed = (await svc.call('GET', '/browsers?kept=true')).body as { session_id: string; kept: { until: string; reason: Record<string, string> } }[];
    expect(listed.map((s) => s.session_id).sort()).toEqual(kept.map((k) => k.session_id).sort());
    for (const [i, name] of failed.entries()) {
      const k = kept[i]!;
      const session = listed.find((s) => s.session_id === k.session_id)!;
      expect(k.session_id).toBe(byName(name).session_id);
      expect(k.until).toBe(session.kept.until);
      const left = Date.parse(k.until) - (Date.now() + ahead);
      expect(left).toBeGreaterThan(14 * 60_000);
      expect(left).toBeLessThanOrEqual(15 * 60_000);
      expect(k.live_view_url).toMatch(new RegExp(`/live/${k.session_id}\\?token=`));
      expect(session.kept.reason).toEqual({ run_id: 'run-42', scenario: name, step: 'expect title "Paid"', message: expect.stringContaining('Paid') });
      // One line each: the scenario, the step, until when and the live view.
      expect(res.stderr).toContain(`bcs: kept the browser of '${name}' at step 'expect title "Paid"' until ${k.until}: ${k.live_view_url}`);
      // Not deleted by the teardown step, which says so.
      const release = byName(name).steps.find((s: { kind: string }) => s.kind === 'release');
      expect(release).toMatchObject({ status: 'passed', output: { kept: true, until: k.until } });
    }

    const html = await readFile(join(out, 'report.html'), 'utf8');
    for (const k of kept) expect(html).toContain(`href="${k.live_view_url}"`);
    expect(html).toContain('browser kept at the failing step');

    // The result reported to /runs keeps it for whoever reads the run there.
    const [run] = (await svc.call('GET', '/runs?suite=keep')).body;
    const reported = (await svc.call('GET', `/runs/${run.id}`)).body.results;
    for (const [i, name] of failed.entries()) expect(reported.find((r: { name: string }) => r.name === name).kept_session).toEqual(kept[i]);
    expect(reported.find((r: { name: string }) => r.name === 'passes')).not.toHaveProperty('kept_session');

    // Each page is where its failing step left it, for a new client; exec runs in the session.
    for (const [i, who] of ['one', 'two', 'three'].entries()) {
      const k = kept[i]!;
      const { cdp_ws_url } = (await svc.call('GET', `/browsers/${k.session_id}`)).body;
      const browser = await chromium.connectOverCDP(cdp_ws_url);
      try {
        const page = browser.contexts().flatMap((c) => c.pages()).find((p) => p.url() === `${siteUrl}/paying/${who}`);
        expect(page, `${failed[i]}: ${browser.contexts().flatMap((c) => c.pages()).map((p) => p.url())}`).toBeDefined();
        expect(await page!.title()).toBe('Paying');
        expect(await page!.textContent('h1')).toBe(`Checkout for ${who}`);
      } finally {
        await browser.close();
      }
      const exec = await svc.call('POST', `/browsers/${k.session_id}/process/exec`, { body: { command: 'echo', args: [who] } });
      expect(exec.status, JSON.stringify(exec.body)).toBe(200);
      expect(Buffer.from(exec.body.stdout_b64, 'base64').toString()).toBe(`${who}\n`);
    }

    // Released by hand: gone at once. The others end when their keep does, by the service's clock.
    expect((await svc.call('DELETE', `/browsers/${kept[0]!.session_id}`)).status).toBe(204);
    expect((await svc.call('GET', `/browsers/${kept[0]!.session_id}?include_deleted=true`)).body.end_reason).toBe('deleted');
    svc.sessions.sweepInactive(Date.now() + 3_600_000);
    expect((await svc.call('GET', '/browsers?kept=true')).body).toHaveLength(2);
    ahead += 15 * 60_000 + 1000;
    for (const k of kept.slice(1)) {
      const ended = await eventually(async () => {
        const r = (await svc.call('GET', `/browsers/${k.session_id}?include_deleted=true`)).body;
        return r.deleted_at ? r : undefined;
      });
      expect(ended.end_reason).toBe('keep_expired');
    }
  });

  it('on a target without the keep route (the hosted wire) deletes the browser as ever, and says what it lacked once', async () => {
    const strict = await startTestService({ strictWire: true });
    try {
      const out = project.path('strict-out');
      const res = await project.run(
        ['run', '1-shared.yaml', '3-own.yaml', '--var', `site=${siteUrl}`, '--keep-on-failure', '15m', '--reporter', 'json', '--output-dir', out],
        { BCS_BASE_URL: strict.baseUrl, BCS_API_KEY: strict.apiKey },
      );
      expect(res.code, res.stderr).toBe(1);
      const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
      expect(results.scenarios.map((s: { kept_session?: unknown }) => s.kept_session)).toEqual([undefined, undefined]);
      expect(results.target.lacks).toContainEqual({ feature: 'keeping a browser (POST /browsers/{id}/keep, for --keep-on-failure)', instead: "failed scenarios' browsers were deleted as usual" });
      expect(res.stderr.match(/keeping a browser/g)).toHaveLength(1);
      expect((await strict.call('GET', '/browsers')).body).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  it('needs a service that outlives the run: the embedded one is a usage error, from the flag or the config', async () => {
    const flag = await project.run(['run', '4-passes.yaml', '--var', `site=${siteUrl}`, '--keep-on-failure', '15m']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('bcs: --keep-on-failure needs a service that outlives the run: the embedded one stops when the run ends');
    await project.write({ 'bcs.config.yaml': 'keep_on_failure: 2h\n' });
    const config = await project.run(['run', '4-passes.yaml', '--var', `site=${siteUrl}`]);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('bcs: keep_on_failure in bcs.config.yaml needs a service that outlives the run');
    const off = await project.run(['run', '4-passes.yaml', '--var', `site=${siteUrl}`, '--keep-on-failure', '0', '--output-dir', project.path('off')]);
    expect(off.code, off.stderr).toBe(0);
    const long = await project.run(['run', '4-passes.yaml', '--keep-on-failure', '25h'], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('--keep-on-failure is at most 24h');
    await project.write({ 'bcs.config.yaml': 'keep_on_failure: 5\n' });
    const bare = await project.run(['run', '4-passes.yaml', '--var', `site=${siteUrl}`]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('keep_on_failure must be a duration such as "15m" or "2h" (0: do not keep)');
    await project.write({ 'bcs.config.yaml': '' });
  });
});

// Playwright traces: recorded per the scenario's `trace:` or `--trace`, each step a named group, kept per the
// mode, linked from the results and the HTML report, and served by `bcs show-trace`.
import { spawn } from 'node:child_process';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const project = await inlineFiles({});
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

async function entry(buffer: Buffer, name: string): Promise<string> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true });
  for await (const e of zip.eachEntry()) {
    if (e.fileName !== name) continue;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString();
  }
  throw new Error(`no ${name} in the zip`);
}

/** Every process's command line, from /proc. */
async function commandLines(): Promise<string> {
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  const lines = await Promise.all(pids.map((p) => readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')));
  return lines.join('\n').replace(/\0/g, ' ');
}

const remote = () => ({ BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });

async function run(name: string, trace: string, title: string, extra: string[] = []) {
  await project.write({
    [`${name}.yaml`]: `name: ${name}\ntrace: ${trace}\nsteps:\n  - goto: "data:text/html,<title>t</title><button>go</button>"\n  - click: { role: button }\n  - expect: { title: ${title}, timeout: 300ms }\n`,
  });
  const file = project.path(`${name}.yaml`);
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'list,json,html', '--output-dir', out, ...extra], remote());
  const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
  return { res, out, scenario: results.scenarios[0] };
}

describe('traces', { timeout: 120_000 }, () => {
  it('retain-on-failure keeps the trace of a failed run, each step a group; a passing run keeps none', async () => {
    const failed = await run('fails', 'retain-on-failure', 'nope');
    expect(failed.res.code).toBe(1);
    expect(failed.scenario.trace).toBe('fails/trace.zip');
    // The step names are the trace's groups.
    const events = await entry(await readFile(join(failed.out, 'fails/trace.zip')), 'trace.trace');
    expect(events).toContain('"title":"click role=button"');
    expect(failed.res.stdout).toContain('trace: fails/trace.zip');
    expect(await readFile(join(failed.out, 'report.html'), 'utf8')).toContain('<a class="trace" href="fails/trace.zip"');

    const passed = await run('passes', 'retain-on-failure', 't');
    expect(passed.res.code).toBe(0);
    expect(passed.scenario.trace).toBeUndefined();
    await expect(stat(join(passed.out, 'passes/trace.zip'))).rejects.toThrow();

    const forced = await run('forced', 'off', 't', ['--trace', 'on']);
    expect(forced.scenario.trace).toBe('forced/trace.zip');
  });

  it('bcs show-trace serves Playwright\'s trace viewer for a trace file', async () => {
    const { out } = await run('shown', 'on', 't');
    const child = spawn(process.execPath, ['runner/bcs.js', 'show-trace', join(out, 'shown/trace.zip'), '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout!.on('data', (d) => {
          text += d;
          const m = /Listening on (http:\/\/\S+)/.exec(text);
          if (m) resolve(m[1]!);
        });
        child.on('exit', () => reject(new Error(`show-trace exited: ${text}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Playwright');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    // The viewer bcs started went with it.
    expect(await commandLines()).not.toContain(join(out, 'shown/trace.zip'));
  });
});

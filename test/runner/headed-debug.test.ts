// `bcs run --headed` shows the browsers on the user's own display (here an Xvfb that demands an X
// authority cookie, as a desktop's X server does), and `--debug` stops before each step until told to go.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../../src/service/host/browser/chromium-path.js';
import { headfulSupport } from '../../src/service/host/browser/xvfb.js';
import { startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';

const run = promisify(execFile);
const support = await headfulSupport((await findChromium(process.env.BCS_CHROMIUM)).headlessShell);
if (!support.available) console.warn(`skipping --headed: ${support.reason}`);

const project = await inlineFiles({
  'shown.yaml': 'name: shown\nsteps:\n  - goto: "data:text/html,<title>Shown here</title><h1>hi</h1>"\n  - sleep: 4s\n  - expect: { title: Shown here }\n',
  'stepped.yaml': 'name: stepped\nsteps:\n  - goto: "data:text/html,<title>one</title>"\n  - expect: { title: one }\n  - goto: "data:text/html,<title>two</title>"\n',
  'stopped.yaml': 'name: stopped\nsteps:\n  - goto: "data:text/html,<title>one</title>"\n  - expect: { title: one }\n',
});

/** An X authority file with one cookie for any host's display `number` (FamilyWild), as xauth writes it. */
function xauthority(number: string, cookie: Buffer): Buffer {
  const field = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 255]), b]);
  return Buffer.concat([Buffer.from([0xff, 0xff]), field(Buffer.alloc(0)), field(Buffer.from(number)), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(cookie)]);
}

describe.skipIf(!support.available)('bcs run --headed', { timeout: 120_000 }, () => {
  let xvfb: ChildProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    // The "desktop": a display of its own that only holders of its cookie may use.
    // Binary and owner-only: written here, as inlineFiles writes text with the default mode.
    const auth = project.path('Xauthority');
    const number = String(100 + Math.floor(Math.random() * 800));
    await writeFile(auth, xauthority(number, randomBytes(16)), { mode: 0o600 });
    xvfb = spawn('Xvfb', [`:${number}`, '-auth', auth, '-screen', '0', '1280x900x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    env = { DISPLAY: `:${number}`, XAUTHORITY: auth };
    for (let tries = 0; ; tries++) {
      const up = await run('xdotool', ['getdisplaygeometry'], { env: { ...process.env, ...env } }).then((r) => r.stdout.trim() === '1280 900', () => false);
      if (up) break;
      if (tries > 100) throw new Error('the test display did not come up');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(() => {
    xvfb?.kill();
  });

  it("shows each scenario's browser on the display it runs from", async () => {
    const file = project.path('shown.yaml');
    const { done } = startCli(['run', file, '--headed', '--output-dir', project.path('out'), '--reporter', 'list'], env);
    // The window is on the user's display while the scenario runs.
    await expect
      .poll(() => run('xdotool', ['search', '--name', 'Shown here'], { env: { ...process.env, ...env } }).then((r) => r.stdout.trim(), () => ''), { timeout: 30_000 })
      .not.toBe('');
    const res = await done;
    expect(res.code, res.stdout + res.stderr).toBe(0);
  });

  it('--headed without a display says so', async () => {
    const { done } = startCli(['run', project.path('shown.yaml'), '--headed'], { DISPLAY: '' });
    const res = await done;
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--headed needs a display to show the browsers on, and DISPLAY is not set');
  });
});

describe('bcs run --debug', { timeout: 120_000 }, () => {
  it('stops before each step: Enter runs one, c the rest of the scenario', async () => {
    const file = project.path('stepped.yaml');
    const { child, done } = startCli(['run', file, '--debug', '--output-dir', project.path('dbg')], { DISPLAY: '' }, { stdin: 'pipe' });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    await expect.poll(() => err, { timeout: 60_000 }).toContain(`stepped: next is "goto data:text/html,<title>one</title>" (${file}:3:5)`);
    expect(err).not.toContain('next is "expect');
    child.stdin!.write('\n');
    await expect.poll(() => err, { timeout: 30_000 }).toContain(`stepped: next is "expect title "one"" (${file}:4:5)`);
    child.stdin!.write('c\n');
    const res = await done;
    expect(res.code, res.stdout + err).toBe(0);
    expect(err).not.toContain('next is "goto data:text/html,<title>two</title>"');
    expect(res.stdout).toContain('1 passed');
  });

  it('q stops the run as Ctrl-C does', async () => {
    const file = project.path('stopped.yaml');
    const { child, done } = startCli(['run', file, '--debug', '--output-dir', project.path('q')], { DISPLAY: '' }, { stdin: 'pipe' });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    await expect.poll(() => err, { timeout: 60_000 }).toContain('stopped: next is');
    child.stdin!.write('q\n');
    const res = await done;
    expect(res.code).toBe(130);
  });
});

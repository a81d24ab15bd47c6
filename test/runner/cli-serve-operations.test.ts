// `bcs serve` as an operator runs it: SIGTERM with --drain-seconds drains (no new sessions, the running
// ones finish), a second signal stops at once; the capacity and public URL flags are checked like the others.
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.js';
import { eventually } from '../helpers/service.js';

const key = `bcs_${'d'.repeat(43)}`;
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function serve(args: string[]) {
  const s = await startServe(key, args);
  dirs.push(s.dataDir);
  let exited = false;
  const done = s.done.then((r) => {
    exited = true;
    return r;
  });
  return { ...s, done, exited: () => exited };
}

describe('bcs serve --drain-seconds', () => {
  it('drains on SIGTERM: new sessions get 503 draining, the running one finishes, then it exits 0', async () => {
    const s = await serve(['--drain-seconds', '120']);
    const running = await s.call('POST', '/browsers');
    expect(running.status).toBe(200);
    s.child.kill('SIGTERM');
    await eventually(() => (s.stderr().includes('bcs serve: draining') ? true : undefined), 30_000);
    const refused = await s.call('POST', '/browsers');
    expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([503, 'draining', '5']);
    // Still serving the session it runs.
    expect((await s.call('GET', `/browsers/${running.body.session_id}`)).status).toBe(200);
    expect(s.exited()).toBe(false);
    expect((await s.call('DELETE', `/browsers/${running.body.session_id}`)).status).toBe(204);
    expect((await s.done).code).toBe(0);
  });

  it('stops at once on a second signal while draining', async () => {
    const s = await serve(['--drain-seconds', '3600']);
    expect((await s.call('POST', '/browsers')).status).toBe(200);
    s.child.kill('SIGTERM');
    await eventually(() => (s.stderr().includes('bcs serve: draining') ? true : undefined), 30_000);
    s.child.kill('SIGTERM');
    const res = await s.done;
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('bcs serve: stopping; closing every browser');
  });

  it('refuses capacity flags out of range and a public URL that is not an origin, with exit 2', async () => {
    for (const [flag, value, says] of [
      ['--max-sessions', '0', '--max-sessions must be 1-100000'],
      ['--create-queue-timeout', 'soon', '--create-queue-timeout must be 0-3600'],
      ['--drain-seconds', '-1', '--drain-seconds must be 0-86400'],
      ['--runs-retention-days', 'forever', '--runs-retention-days must be 0-36500'],
      ['--runs-stale-hours', '-2', '--runs-stale-hours must be 0-8760'],
      ['--public-url', 'https://browsers.example.com/bcs', '--public-url: the public URL'],
      ['--public-url', 'ftp://browsers.example.com', 'must be http:// or https://'],
    ] as const) {
      const res = await runCli(['serve', '--port', '0', flag, value], { BCS_API_KEY: key });
      expect(res.code, `${flag} ${value}`).toBe(2);
      expect(res.stderr).toContain(says);
    }
  });

  it('names its public URL in the banner and answers with it', async () => {
    const s = await serve(['--public-url', 'https://browsers.example.com']);
    expect(s.stderr()).toContain("bcs serve: answers' URLs start with https://browsers.example.com (--public-url)");
    const created = await s.call('POST', '/browsers');
    expect(created.body.cdp_ws_url).toMatch(/^wss:\/\/browsers\.example\.com\/browsers\//);
    s.child.kill('SIGINT');
    expect((await s.done).code).toBe(0);
  });
});

// Nothing a session starts outlives the service: processes started with process/spawn (one that
// backgrounds a child, one that escapes into its own session with setsid) die when the service is
// killed outright (SIGKILL: no code of its own runs), in both sandbox modes.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { eventually } from '../helpers/service.js';

const SERVICE = `
const { startService } = await import(process.argv[1]);
const svc = await startService({ dataDir: process.argv[2], sandbox: process.argv[3], logLevel: 'silent', standby: 0, apiKey: process.env.KEY });
process.stdout.write('READY ' + svc.baseUrl + '\\n');
`;

/** Pids whose command line holds `marker` (a number no other process here uses). */
async function running(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmd = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    // Only the commands themselves, not bwrap's or a shell's line that names them.
    if (cmd.split('\0')[0]?.endsWith('sleep') && cmd.includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

for (const mode of ['auto', 'off'] as const) {
  describe(`processes of a session (sandbox ${mode})`, () => {
    it('die with a service killed by SIGKILL, grandchildren and setsid escapes included', { timeout: 120_000 }, async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'bcs-lifetime-'));
      dirs.push(dataDir);
      const key = `bcs_${randomBytes(24).toString('base64url')}`;
      const service = spawn(process.execPath, ['--input-type=module', '-e', SERVICE, join(ROOT, 'dist/src/index.js'), dataDir, mode], {
        env: { ...process.env, KEY: key },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      service.stdout!.on('data', (d) => (out += d));
      try {
        const baseUrl = await eventually(() => /^READY (\S+)$/m.exec(out)?.[1]);
        const call = async (path: string, body: unknown) => {
          const res = await fetch(baseUrl + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
          expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
          return res.json();
        };
        const { session_id: id } = await call('/browsers', {});
        // A marker unique to this run, so parallel files never count each other's sleeps.
        const n = 100_000 + Math.floor(Math.random() * 800_000);
        const marker = (k: number) => `${n}${k}`;
        await call(`/browsers/${id}/process/spawn`, { command: 'sleep', args: [marker(1)] });
        await call(`/browsers/${id}/process/spawn`, { command: 'sh', args: ['-c', `sleep ${marker(2)} & wait`] });
        await call(`/browsers/${id}/process/spawn`, { command: 'sh', args: ['-c', `setsid sleep ${marker(3)} & sleep ${marker(4)}`] });
        await eventually(async () => ((await running(String(n))).length === 4 ? true : undefined));

        service.kill('SIGKILL');
        await eventually(async () => ((await running(String(n))).length === 0 ? true : undefined));
      } finally {
        service.kill('SIGKILL');
      }
    });
  });
}

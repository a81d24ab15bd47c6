import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { eventually, isAlive } from '../helpers/service.js';

describe('bcs serve', () => {
  it('prints its URL first, generates a key once, serves, and closes every browser on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-'));
    const { child, done } = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent']);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const [baseLine, keyLine] = await eventually(() => {
      const lines = out.split('\n');
      return lines.length >= 3 ? lines : undefined;
    });
    expect(baseLine).toMatch(/^BCS_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(keyLine).toMatch(/^BCS_API_KEY=bcs_[\w-]{43}$/);
    const baseUrl = baseLine!.split('=')[1]!;
    const key = keyLine!.split('=')[1]!;
    const created = await fetch(`${baseUrl}/browsers`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    expect(created.status).toBe(200);
    const { session_id } = (await created.json()) as { session_id: string };
    expect(session_id).toBeTruthy();
    child.kill('SIGTERM');
    const res = await done;
    expect(res.code).toBe(0);
    expect(res.stderr).not.toContain(key);
    // No Chromium of this data dir survives the service.
    const { readdir, readFile } = await import('node:fs/promises');
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmd.includes(dataDir)) expect(isAlive(Number(pid)), cmd).toBe(false);
    }
    await rm(dataDir, { recursive: true, force: true });
  });
});

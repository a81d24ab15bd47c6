import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { eventually, isAlive } from '../helpers/service.js';

describe('bcs serve', () => {
  it('prints its URL first, generates a key once, serves, and closes every browser on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-'));
    const { child, done } = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent']);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const [baseLine, keyLine] = await eventually(() => {
      const lines = out.split('\n');
      return lines.length >= 3 ? lines : undefined;
    });
    expect(baseLine).toMatch(/^BCS_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/);
    expect(keyLine).toMatch(/^BCS_API_KEY=bcs_[\w-]{43}$/);
    const baseUrl = baseLine!.split('=')[1]!;
    const key = keyLine!.split('=')[1]!;
    await eventually(() => (err.includes('bcs serve: console:') ? true : undefined));
    expect(err).toContain(`bcs serve: console: ${baseUrl}/ `);
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

describe('bcs serve without a sandbox', () => {
  it('refuses to start unless --unsandboxed, which it then says in its banner', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-'));
    const refused = await runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'], { BCS_SANDBOX: 'off' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refusing to start');
    expect(refused.stderr).toContain('--unsandboxed');
    expect(refused.stdout).not.toContain('BCS_BASE_URL');

    const { child, done } = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent'], { BCS_SANDBOX: 'off' });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    await eventually(() => (err.includes('isolation:') ? true : undefined));
    expect(err).toMatch(/WARNING: isolation: unsandboxed/);
    child.kill('SIGTERM');
    expect((await done).code).toBe(0);
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe('the API key is never on a command line', () => {
  const key = `bcs_${'k'.repeat(43)}`;

  async function serveWith(args: string[], env: Record<string, string>) {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-key-'));
    const started = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent', ...args], env);
    let out = '';
    let err = '';
    started.child.stdout!.on('data', (d) => (out += d));
    started.child.stderr!.on('data', (d) => (err += d));
    const baseUrl = await eventually(() => /^BCS_BASE_URL=(\S+)$/m.exec(out)?.[1]);
    const cmdline = await readFile(`/proc/${started.child.pid}/cmdline`, 'utf8');
    const status = (await fetch(`${baseUrl}/browsers`, { headers: { authorization: `Bearer ${key}` } })).status;
    started.child.kill('SIGTERM');
    await started.done;
    await rm(dataDir, { recursive: true, force: true });
    return { cmdline, status, err, out };
  }

  it('takes it from BCS_API_KEY or --api-key-file, and keeps none in /proc/<pid>/cmdline', async () => {
    const fromEnv = await serveWith([], { BCS_API_KEY: key });
    expect(fromEnv.status).toBe(200);
    expect(fromEnv.cmdline).not.toContain(key);
    expect(fromEnv.out).not.toContain(key);

    const file = join(await mkdtemp(join(tmpdir(), 'bcs-key-')), 'key');
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    const fromFile = await serveWith(['--api-key-file', file], {});
    expect(fromFile.status).toBe(200);
    expect(fromFile.cmdline).not.toContain(key);
    expect(fromFile.err).not.toContain('warning');
  });

  it('still takes --api-key, warns, and wipes it from its command line', async () => {
    const given = await serveWith(['--api-key', key], {});
    expect(given.status).toBe(200);
    expect(given.err).toContain('--api-key puts the key on the command line');
    expect(given.cmdline).not.toContain(key);
  });

  it('admin commands read the key from a file too', async () => {
    const missing = await runCli(['keys', 'list', '--base-url', 'http://127.0.0.1:9', '--api-key-file', '/nonexistent/key']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--api-key-file');
  });
});

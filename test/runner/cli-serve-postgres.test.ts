// `bcs serve --database-url`: the product's own path to PostgreSQL. State outlives the process and its
// data dir, the banner names the database without a password, and a second process on the same database
// is refused while the first holds it (coordination is in one process until the cluster roles land).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startServe } from '../helpers/cli.js';
import { postgresServer } from '../helpers/stores.js';
import { createDatabase, dropDatabase } from '../helpers/postgres.js';

const { url: server, missing } = postgresServer();
if (!server) console.log(`skipped: bcs serve on PostgreSQL: ${missing}`);
const key = `bcs_${'p'.repeat(43)}`;

async function serve(databaseUrl: string, via: 'flag' | 'env', args: string[] = []) {
  const s = await startServe(key, [...(via === 'flag' ? ['--database-url', databaseUrl] : []), ...args], via === 'env' ? { BCS_DATABASE_URL: databaseUrl } : {});
  const stop = async () => {
    s.child.kill('SIGTERM');
    const done = await s.done;
    await rm(s.dataDir, { recursive: true, force: true });
    return done;
  };
  return { call: s.call, stop, banner: s.stderr };
}

describe.skipIf(!server)('bcs serve --database-url', () => {
  it('keeps state in PostgreSQL across processes and data dirs, names the database without its password, and holds it alone', async () => {
    const databaseUrl = await createDatabase(server!);
    try {
      const first = await serve(databaseUrl, 'flag');
      expect(first.banner()).toContain(`bcs serve: state: postgres ${databaseUrl}`);
      expect((await first.call('POST', '/org/projects', { name: 'kept' })).status).toBe(200);
      const browser = await first.call('POST', '/browsers', { name: 'on-pg', headless: true });
      expect(browser.status).toBe(200);

      // A second process on the same database is refused while the first runs.
      const dataDir = await mkdtemp(join(tmpdir(), 'bcs-serve-pg-'));
      const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir, '--unsandboxed', '--log-level', 'silent'], {
        BCS_API_KEY: key,
        BCS_DATABASE_URL: databaseUrl,
      });
      await rm(dataDir, { recursive: true, force: true });
      expect(second.code).toBe(3);
      expect(second.stderr).toContain('another bcs serve already uses the database');
      expect(second.stdout).not.toContain('BCS_BASE_URL');
      expect((await first.stop()).code).toBe(0);

      // The password rides in BCS_DATABASE_URL (trust auth on the test server ignores it); never shown.
      const withPassword = databaseUrl.replace('postgres@', 'postgres:n0t-shown@');
      const again = await serve(withPassword, 'env');
      expect(again.banner()).toContain(`bcs serve: state: postgres ${databaseUrl}`);
      expect(again.banner()).not.toContain('n0t-shown');
      const projects = await again.call('GET', '/org/projects');
      expect(projects.body.map((p: { name: string }) => p.name)).toContain('kept');
      // The session of the stopped process was ended by its shutdown, and stays listed as such.
      const ended = await again.call('GET', '/browsers?status=deleted');
      expect(ended.body.map((b: { session_id: string }) => b.session_id)).toContain(browser.body.session_id);
      expect((await again.stop()).code).toBe(0);
    } finally {
      await dropDatabase(databaseUrl);
    }
  });

  it('opens secrets sealed by another process, on another data dir, with the same --secrets-key-file; warns without one', async () => {
    const databaseUrl = await createDatabase(server!);
    const dir = await mkdtemp(join(tmpdir(), 'bcs-secrets-'));
    try {
      const keyFile = join(dir, 'secrets.key');
      await writeFile(keyFile, `${randomBytes(32).toString('base64')}\n`);
      const credential = { name: 'mfa', domain: 'example.com', values: { username: 'grace' }, totp_secret: 'JBSWY3DPEHPK3PXP' };
      const first = await serve(databaseUrl, 'flag', ['--secrets-key-file', keyFile]);
      expect(first.banner()).toContain(`bcs serve: secrets key: ${keyFile} (--secrets-key-file)`);
      expect((await first.call('POST', '/credentials', credential)).status).toBe(200);
      expect((await first.stop()).code).toBe(0);

      // Another process, another data dir, the same key through the environment: the sealed secret opens.
      const second = await startServe(key, ['--database-url', databaseUrl], { BCS_SECRETS_KEY_FILE: keyFile });
      const code = await second.call('GET', '/credentials/mfa/totp-code');
      expect(code.status, JSON.stringify(code.body)).toBe(200);
      expect(code.body.code).toMatch(/^\d{6}$/);
      second.child.kill('SIGTERM');
      await second.done;
      await rm(second.dataDir, { recursive: true, force: true });

      // Without it, the banner says so loudly and the secret is a clear 503, not a wrong answer.
      const third = await serve(databaseUrl, 'flag');
      expect(third.banner()).toContain('bcs serve: WARNING: secrets key:');
      expect(third.banner()).toContain('give every process on the database the same --secrets-key-file');
      const unreadable = await third.call('GET', '/credentials/mfa/totp-code');
      expect([unreadable.status, unreadable.body.code]).toEqual([503, 'secret_unavailable']);
      expect((await third.stop()).code).toBe(0);

      // A file without a key stops the start (exit 2), naming the file.
      await writeFile(keyFile, 'too short');
      const bad = await runCli(['serve', '--port', '0', '--database-url', databaseUrl, '--secrets-key-file', keyFile, '--unsandboxed'], { BCS_API_KEY: key });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`bcs serve: refusing to start: the secrets key file ${keyFile} holds no 32-byte key`);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await dropDatabase(databaseUrl);
    }
  });

  it('refuses a password on the command line before starting anything', async () => {
    const res = await runCli(['serve', '--port', '0', '--database-url', 'postgres://bcs:s3cret@127.0.0.1:1/bcs']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('BCS_DATABASE_URL');
    expect(res.stderr).not.toContain('s3cret');
  });
});

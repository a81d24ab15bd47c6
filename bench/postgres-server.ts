// A throwaway PostgreSQL server from Debian's `postgresql` package, and fresh databases on it: what the
// tests (test/helpers/postgres.ts, one server for the run) and the store benchmark (bench/store-latency.ts)
// both start. Where the package is missing, findPostgres says why.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, chownSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface PostgresServer {
  /** The server's admin URL (database `postgres`). */
  url: string;
  stop(): Promise<void>;
}

/** Where initdb and postgres are, or why they cannot run here. */
export function findPostgres(): { bin: string } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return { bin };
  }
  return { missing: 'PostgreSQL is not installed (apt-get install postgresql); .ci/run installs it' };
}

/** Starts a throwaway server on a free loopback port, as the `postgres` user when run as root. */
export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'bcs-pg-'));
  chmodSync(dir, 0o700);
  // initdb and postgres refuse to run as root: they run as the package's postgres user.
  const owner = process.getuid?.() === 0 ? userIds('postgres') : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    stdio: 'pipe',
    ...owner,
  });
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const server = spawn(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off',
        '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
      { stdio: ['ignore', 'ignore', 'pipe'], ...owner },
    );
    let log = '';
    server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    if (await ready(url, server)) {
      return {
        url,
        stop: async () => {
          await stopProcess(server);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopProcess(server);
    // Another process took the port between our probe and the server's bind: try another.
    if (attempt >= 4 || !/could not (bind|create)|in use/i.test(log)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`postgres did not start: ${log}`);
    }
  }
}

/** A new, empty database on `serverUrl`; answers its URL. */
export async function createDatabase(serverUrl: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function ready(url: string, server: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && server.exitCode === null) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return true;
    } catch {
      await client.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return false;
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    // SIGQUIT: immediate shutdown; the data directory is thrown away.
    child.kill('SIGQUIT');
  });
}

function userIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  return { uid, gid };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

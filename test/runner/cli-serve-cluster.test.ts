// The cluster as operators run it: real `bcs serve --role host` and `--role api` processes on one real
// PostgreSQL, with the product's defaults (1 s heartbeats, 10 s of silence before a host is declared gone).
// A host is SIGKILLed holding sessions, a pool lease and a connected Playwright: the client's socket
// closes at once, the sessions end as host_lost, the pool (spread over both hosts) is refilled on the
// other host, which leads now and keeps the browsers it already ran, and nothing the dead host launched runs on.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { parseExposition } from '../helpers/metrics.js';
import { createDatabase, dropDatabase, queryRows } from '../helpers/postgres.js';
import { eventually, processesMentioning } from '../helpers/service.js';
import { postgresServer } from '../helpers/stores.js';

const { url: server, missing } = postgresServer();
if (!server) console.log(`skipped: the cluster of bcs serve processes: ${missing}`);
// Hosts run with the product's default, the sandbox: its processes die with the host (nothing outlives a kill).
const noSandbox = spawnSync('bwrap', ['--version']).error ? 'bubblewrap is not installed (apt-get install bubblewrap)' : undefined;
if (noSandbox) console.log(`skipped: a host SIGKILLed: ${noSandbox}`);
const key = `bcs_${'c'.repeat(43)}`;

interface Proc {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  stderr: () => string;
}

let databaseUrl: string;
let dir: string;
const procs: Proc[] = [];

async function start(args: string[]): Promise<Proc> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bcs-cluster-proc-'));
  const { child } = startCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', '--standby', '0', ...args], {
    BCS_API_KEY: key,
    BCS_DATABASE_URL: databaseUrl,
    BCS_CLUSTER_KEY_FILE: join(dir, 'cluster.key'),
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const baseUrl = await eventually(() => /^BCS_BASE_URL=(\S+)$/m.exec(out)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(err)) : undefined), 30_000);
  // The banner goes to stderr after the URL goes to stdout: two pipes, read in whichever order they arrive.
  await eventually(() => (err.includes('bcs serve: listening on') ? true : undefined), 30_000);
  const proc = { child, baseUrl, dataDir, stderr: () => err };
  procs.push(proc);
  return proc;
}

async function call(via: Proc, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(via.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const query = <T extends object>(text: string, values: unknown[] = []) => queryRows<T>(databaseUrl, text, values);

/** What a replica's /metrics says each host runs. */
async function hostSessions(replica: Proc): Promise<Record<string, number>> {
  const res = await fetch(`${replica.baseUrl}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  const samples = parseExposition(await res.text()).filter((s) => s.name === 'bcs_cluster_host_sessions');
  return Object.fromEntries(samples.map((s) => [s.labels.host!, s.value]));
}

describe.skipIf(!server)('bcs serve: a cluster of processes', () => {
  beforeAll(async () => {
    databaseUrl = await createDatabase(server!);
    dir = await mkdtemp(join(tmpdir(), 'bcs-cluster-'));
    await writeFile(join(dir, 'cluster.key'), randomBytes(32).toString('hex'), { mode: 0o600 });
  });
  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => new Promise((r) => (p.child.exitCode !== null || p.child.signalCode !== null ? r(undefined) : p.child.once('exit', r)))));
    await Promise.all(procs.map((p) => rm(p.dataDir, { recursive: true, force: true })));
    if (databaseUrl) await dropDatabase(databaseUrl);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a cluster role without its database or key, and a host without an API key', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const noDb = await runCli(['serve', '--role', 'api', '--port', '0'], { BCS_CLUSTER_KEY_FILE: join(dir, 'cluster.key') });
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toContain('--role api: a cluster keeps its state in PostgreSQL');
    const noKey = await runCli(['serve', '--role', 'host', '--port', '0'], { BCS_DATABASE_URL: databaseUrl, BCS_API_KEY: key });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--cluster-key-file');
    const noApiKey = await runCli(['serve', '--role', 'host', '--port', '0', '--host-id', 'h'], { BCS_DATABASE_URL: databaseUrl, BCS_CLUSTER_KEY_FILE: join(dir, 'cluster.key') });
    expect(noApiKey.code).toBe(2);
    expect(noApiKey.stderr).toContain('a cluster never generates one');
    const noPublicUrl = await runCli(['serve', '--role', 'host', '--port', '0', '--host-id', 'h'], { BCS_DATABASE_URL: databaseUrl, BCS_CLUSTER_KEY_FILE: join(dir, 'cluster.key'), BCS_API_KEY: key });
    expect(noPublicUrl.code).toBe(2);
    expect(noPublicUrl.stderr).toContain('--public-url');
    const stray = await runCli(['serve', '--port', '0', '--host-id', 'h'], { BCS_API_KEY: key });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('belong to a cluster role');
  });

  it.skipIf(noSandbox)('survives a host SIGKILLed holding sessions, a lease and a connected client', async () => {
    const blobs = join(dir, 'blobs');
    // Replicas first: hosts are told the origin clients reach them by (the load balancer's, here replica 1).
    const replica1 = await start(['--role', 'api']);
    const replica2 = await start(['--role', 'api']);
    expect(replica1.stderr()).toContain('role: API replica');
    expect(replica1.stderr()).toContain('hosts: none yet');
    const host = ['--role', 'host', '--blob-dir', blobs, '--public-url', replica1.baseUrl];
    // Host 1 starts first and leads: it keeps the pool's books, whichever host runs its browsers.
    const host1 = await start([...host, '--host-id', 'host-1']);
    await eventually(async () => ((await query<{ leader: number }>('SELECT leader FROM hosts WHERE id = $1', ['host-1']))[0]?.leader === 1 ? true : undefined), 15_000);
    const host2 = await start([...host, '--host-id', 'host-2', '--max-sessions', '5']);
    expect(host2.stderr()).toContain("role: host 'host-2' of a cluster");
    await eventually(async () => (Object.keys(await hostSessions(replica1)).length === 2 ? true : undefined), 15_000);
    // The leader places pool browsers on the hosts its last beat read (a beat: its heartbeat, then the read).
    // Wait for a beat that began after host 2 registered, then for the next one: the first has then finished.
    const beatAfter = (t: Date) =>
      eventually(async () => {
        const at = (await query<{ heartbeat_at: Date }>('SELECT heartbeat_at FROM hosts WHERE id = $1', ['host-1']))[0]!.heartbeat_at;
        return at > t ? at : undefined;
      }, 15_000);
    const registered = (await query<{ started_at: Date }>('SELECT started_at FROM hosts WHERE id = $1', ['host-2']))[0]!.started_at;
    await beatAfter(await beatAfter(registered));
    // The probe an orchestrator runs answers for both roles.
    const { runCli } = await import('../helpers/cli.js');
    expect((await runCli(['probe', '--url', replica1.baseUrl], { BCS_API_KEY: key })).code).toBe(0);
    expect((await runCli(['probe', '--url', host2.baseUrl], { BCS_API_KEY: key, BCS_CLUSTER_KEY_FILE: join(dir, 'cluster.key') })).code).toBe(0);

    const pool = await call(replica2, 'POST', '/browser_pools', { name: 'kept', size: 3 });
    expect(pool.status).toBe(200);
    await eventually(async () => ((await call(replica1, 'GET', '/browser_pools/kept')).body.available_count === 3 ? true : undefined), 30_000);
    // The pool is spread over both hosts; the lease kept is one of host 1's, the others go back.
    const leases = [];
    for (let i = 0; i < 3; i++) leases.push(await call(i % 2 ? replica2 : replica1, 'POST', '/browser_pools/kept/acquire', {}));
    expect(leases.map((l) => l.status)).toEqual([200, 200, 200]);
    const leaseHosts = await Promise.all(leases.map(async (l) => (await query<{ host_id: string }>('SELECT host_id FROM browsers WHERE id = $1', [l.body.session_id]))[0]!.host_id));
    expect(new Set(leaseHosts)).toEqual(new Set(['host-1', 'host-2']));
    const lease = leases[leaseHosts.indexOf('host-1')]!;
    for (const other of leases) if (other !== lease) expect((await call(replica2, 'POST', '/browser_pools/kept/release', { session_id: other.body.session_id })).status).toBe(204);
    await eventually(async () => ((await call(replica1, 'GET', '/browser_pools/kept')).body.available_count === 2 ? true : undefined), 15_000);
    expect((await call(replica1, 'GET', '/browser_pools/kept')).body.acquired_count).toBe(1);

    // Placement weighs load against capacity: host 1 (no bound) is the emptier one next to host 2's five.
    const onHost1: { session_id: string; cdp_ws_url: string }[] = [];
    for (let i = 0; onHost1.length < 2 && i < 4; i++) {
      const created = await call(i % 2 ? replica2 : replica1, 'POST', '/browsers', {});
      expect(created.status).toBe(200);
      const [row] = await query<{ host_id: string }>('SELECT host_id FROM browsers WHERE id = $1', [created.body.session_id]);
      if (row!.host_id === 'host-1') onHost1.push(created.body);
      // The next placement sees this one: wait until the replicas' view of the hosts includes it.
      const total = Number((await query<{ n: string }>('SELECT count(*) AS n FROM browsers WHERE deleted_at IS NULL'))[0]!.n);
      await eventually(async () => {
        const seen = await Promise.all([replica1, replica2].map(hostSessions));
        return seen.every((s) => Object.values(s).reduce((a, b) => a + b, 0) === total) ? true : undefined;
      }, 15_000);
    }
    expect(onHost1.length).toBe(2);

    const browser = await chromium.connectOverCDP(onHost1[0]!.cdp_ws_url);
    const disconnected = new Promise<number>((resolve) => browser.on('disconnected', () => resolve(Date.now())));
    const killedAt = Date.now();
    host1.child.kill('SIGKILL');
    // The bridged socket closes as soon as the host's end of it is gone.
    expect((await disconnected) - killedAt).toBeLessThan(3000);

    const ids = [...onHost1.map((s) => s.session_id), lease.body.session_id];
    await eventually(async () => {
      const rows = await query<{ end_reason: string | null }>('SELECT end_reason FROM browsers WHERE id = ANY($1)', [ids]);
      return rows.every((r) => r.end_reason === 'host_lost') ? true : undefined;
    }, 20_000);
    // Host 2 leads now: it takes in the pool browsers it ran and refills the rest of the pool there.
    await eventually(async () => ((await call(replica1, 'GET', '/browser_pools/kept')).body.available_count === 3 ? true : undefined), 30_000);
    const members = await query<{ host_id: string }>('SELECT host_id FROM browsers WHERE pool_id = $1 AND deleted_at IS NULL', [pool.body.id]);
    expect(members.map((m) => m.host_id)).toEqual(['host-2', 'host-2', 'host-2']);
    // Nothing host 1 launched outlives it.
    await eventually(async () => ((await processesMentioning(host1.dataDir)).length === 0 ? true : undefined), 15_000);
    expect(host2.child.exitCode).toBeNull();
    // Four service processes, PostgreSQL and a pool's browsers start here: the default minute is too short on a busy
    // machine (seen once at load 19), while each wait above keeps its own bound.
  }, 180_000);
});

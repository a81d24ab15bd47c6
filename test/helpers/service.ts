// Starts the real embedded service on port 0 with its own data dir, and a tiny raw-HTTP helper
// for asserting exact statuses, headers and bodies.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { startReplica, startService, type RunningReplica, type RunningService, type ServiceOptions } from '../../src/service/index.js';
import { testDatabaseUrl } from './stores.js';
import { dropDatabase, releaseHolders } from './postgres.js';

export interface TestService extends RunningService {
  dataDir: string;
  /** The PostgreSQL database it keeps its state in; undefined: SQLite in `dataDir`. */
  databaseUrl: string | undefined;
  call(method: string, path: string, opts?: { body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<Reply>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

const databasesByDataDir = new Map<string, string>();
const CLUSTER_KEY = 'cluster.key';

/**
 * With BCS_TEST_CLUSTER=1 (and the run on PostgreSQL), every test service is a browser host of a cluster of
 * its own behind one API replica, which is what clients reach (and the host's public URL): the tests that
 * speak only HTTP and WebSockets then run through a replica. A restart on the same data dir is the same
 * host (its id and key are kept there).
 */
async function clusterFor(databaseUrl: string | undefined, dataDir: string, opts: Partial<ServiceOptions>): Promise<{ options: Partial<ServiceOptions>; replica: RunningReplica } | undefined> {
  if (process.env.BCS_TEST_CLUSTER !== '1' || opts.cluster) return undefined;
  if (!databaseUrl) throw new Error('BCS_TEST_CLUSTER=1 needs the services on PostgreSQL (BCS_TEST_DATABASE=postgres)');
  const keyFile = join(dataDir, CLUSTER_KEY);
  await writeFile(keyFile, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  const replica = await startReplica({ databaseUrl, clusterKeyFile: keyFile, refreshMs: 100 });
  const hostId = `host-${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}`;
  return { options: { cluster: { clusterKeyFile: keyFile, hostId, heartbeatMs: 200 }, publicUrl: replica.baseUrl }, replica };
}

export interface TestServiceOptions extends Partial<ServiceOptions> {
  /** 'sqlite': SQLite in the data dir even when the run puts services on PostgreSQL (tests of the file itself). */
  store?: 'sqlite';
}

export async function startTestService({ store, ...opts }: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'bcs-test-')));
  // No warm standby unless a test asks for one: most files never create a browser, and the ones that do
  // would pay for a second launch (the standby's replacement) on two cores shared by parallel files.
  // BCS_TEST_DATABASE=postgres runs every service of the suite on PostgreSQL (a fresh database each).
  // A test that restarts a service on its data dir finds its state again: the same database per data dir.
  const kept = opts.dataDir ? databasesByDataDir.get(opts.dataDir) : undefined;
  const ownDatabase = opts.databaseUrl || kept || store === 'sqlite' ? undefined : await testDatabaseUrl();
  const databaseUrl = opts.databaseUrl ?? kept ?? ownDatabase;
  if (ownDatabase) databasesByDataDir.set(opts.dataDir ?? dataDir, ownDatabase);
  // A start on a data dir another service used plays a restart: that one is gone (or plays dead).
  if (kept) await releaseHolders(kept);
  const cluster = await clusterFor(databaseUrl, dataDir, opts);
  const started = await startService({
    logLevel: 'silent',
    sweepIntervalMs: 200,
    standby: 0,
    networkPolicy: 'local',
    ...cluster?.options,
    ...opts,
    dataDir,
    databaseUrl,
  }).catch(async (err: unknown) => {
    await cluster?.replica.close();
    throw err;
  });
  const replica = cluster?.replica;
  if (replica) await eventually(async () => (await replica.refresh(), replica.hosts().length ? true : undefined), 10_000);
  const service: RunningService = replica ? { ...started, baseUrl: replica.baseUrl } : started;
  const call: TestService['call'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${service.apiKey}`, ...o.headers };
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(service.baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    ...service,
    dataDir,
    databaseUrl,
    call,
    close: async () => {
      await replica?.close();
      await service.close();
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
      // A database kept for a test's own data dir outlives this service (it may start again); the run's
      // server goes at the end. One made for a data dir of ours goes with that dir.
      if (ownDatabase && !opts.dataDir) {
        databasesByDataDir.delete(dataDir);
        await dropDatabase(ownDatabase);
      }
    },
  };
}

/**
 * A clock that reads `iso` when created and advances with real time from there: for tests whose outcome
 * depends on the date (deprecations, expiries), so they pass whatever day the suite runs on.
 */
export function clockFrom(iso: string): () => Date {
  const anchor = Date.parse(iso);
  const started = Date.now();
  return () => new Date(anchor + (Date.now() - started));
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. The deadline is
 * a backstop for a condition that never comes, not a speed requirement: generous, since the suite runs on
 * two busy cores.
 */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Pids of every process whose command line mentions `needle` (Chromium and all its helpers). */
export async function processesMentioning(needle: string): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes(needle)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/**
 * Each of these sessions shows in `listPath`'s page exactly as its own GET shows it (but for its uptime):
 * a page reads its sessions' links in one query per kind, a GET one session's.
 */
export async function expectListedAsAlone(svc: TestService, ids: readonly string[], listPath = '/browsers'): Promise<void> {
  const { body: listed } = await svc.call('GET', listPath);
  for (const id of ids) {
    const { usage: _alone, ...alone } = (await svc.call('GET', `/browsers/${id}`)).body;
    const entry = (listed as { session_id: string }[]).find((s) => s.session_id === id);
    expect(entry, `${id} in ${listPath}`).toBeDefined();
    const { usage: _listed, ...inPage } = entry as { usage?: unknown };
    expect(inPage).toEqual(alone);
  }
}

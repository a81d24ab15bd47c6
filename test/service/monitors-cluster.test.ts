// Monitors across a cluster: two browser hosts and a replica on one real PostgreSQL, both hosts able to run
// checks. The leader schedules; each slot of a check's schedule runs exactly once, and when the leader stops
// mid-run, the other host takes the schedule over and runs that slot again, once.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplica, type RunningReplica } from '../../src/service/cluster/replica.js';
import { newApiKey } from '../../src/service/ids.js';
import type { MonitorCheckState } from '../../src/api/schemas/monitors.js';
import { zipOf } from '../helpers/app-zip.js';
import { ROOT } from '../helpers/cli.js';
import { createDatabase, dropDatabase, queryRows } from '../helpers/postgres.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { postgresServer } from '../helpers/stores.js';

const { url: pgServer, missing } = postgresServer();
const suite = pgServer ? describe : describe.skip;
if (!pgServer) console.log(`monitor cluster tests skipped: ${missing}`);

const T0 = Date.parse('2030-03-02T10:00:00Z');
let nowMs = T0;
const clock = () => new Date(nowMs);
let databaseUrl: string;
let dir: string;
let keyFile: string;
let site: Server;
/** How long the checked page takes to answer: long enough, the check is surely running when its host stops. */
let siteDelayMs = 0;
const apiKey = newApiKey();
const hosts = new Map<string, TestService>();
let replica: RunningReplica;

async function call(method: string, path: string, body?: FormData): Promise<{ status: number; body: any }> {
  const res = await fetch(replica.baseUrl + path, { method, headers: { authorization: `Bearer ${apiKey}` }, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const startHost = async (id: string) =>
  hosts.set(
    id,
    await startTestService({
      databaseUrl,
      apiKey,
      now: clock,
      cluster: { clusterKeyFile: keyFile, hostId: id, heartbeatMs: 200, hostSilentMs: 2000 },
      blobDir: join(dir, 'blobs'),
      monitorRunner: { packageDir: ROOT },
      monitorTickMs: 50,
    }),
  );

/** The check as the cluster answers; undefined while no leader answers (a stopped leader's successor is taking over). */
const checkState = async (): Promise<MonitorCheckState | undefined> => {
  const res = await call('GET', '/monitors/checks?recent=50');
  return res.status === 200 ? (res.body as MonitorCheckState[])[0] : undefined;
};
/** The check once `runs` runs are recorded and none is under way. */
const settled = (runs: number) =>
  eventually(async () => {
    const c = await checkState();
    return c && c.recent.length === runs && !c.running ? c : undefined;
  }, 120_000);
/** Check runs recorded per scheduled slot, across both hosts (the database is the witness). */
const runsPerSlot = async () =>
  (await queryRows<{ started_at: string; n: string }>(databaseUrl, 'SELECT started_at, count(*) AS n FROM monitor_check_runs GROUP BY started_at ORDER BY started_at')).map((r) => [r.started_at, Number(r.n)]);

suite('monitors on a cluster', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    databaseUrl = await createDatabase(pgServer!);
    dir = await mkdtemp(join(tmpdir(), 'bcs-monitor-cluster-'));
    keyFile = join(dir, 'cluster.key');
    await writeFile(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    site = createServer((_req, res) => {
      setTimeout(() => res.end('<!doctype html><title>ok</title>'), siteDelayMs);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    await startHost('host-1');
    await startHost('host-2');
    replica = await startReplica({ databaseUrl, clusterKeyFile: keyFile, refreshMs: 100, hostSilentMs: 2000 });
    await eventually(() => (replica.hosts().length === 2 ? true : undefined), 10_000);
  });
  afterAll(async () => {
    await replica?.close();
    await Promise.all([...hosts.values()].map((h) => h.close()));
    site?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs every slot of a schedule once, whichever host leads, and a slot cut off by a stopping leader once more', async () => {
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const form = new FormData();
    form.append('manifest', JSON.stringify({ suite: 'shop', checks: [{ name: 'home', file: 'home.yaml', schedule: { every_seconds: 60 }, timeout_seconds: 120 }] }));
    const scenario = `name: home\nsteps:\n  - goto: "${url}/"\n  - expect: { title: ok, timeout: 30s }\n`;
    form.append('file', new Blob([new Uint8Array(await zipOf({ 'home.yaml': scenario }))]), 'shop.zip');
    expect((await call('POST', '/monitors/deployments', form)).status).toBe(200);

    // Three slots, one run each.
    for (let slot = 0; slot < 3; slot++) {
      nowMs = T0 + slot * 60_000;
      expect((await settled(slot + 1)).status).toBe('passing');
    }
    expect(await runsPerSlot()).toEqual([0, 1, 2].map((s) => [new Date(T0 + s * 60_000).toISOString(), 1]));

    // The leader stops while the fourth slot's run waits on the page: the other host leads and runs it.
    siteDelayMs = 20_000;
    nowMs = T0 + 3 * 60_000;
    const owner = await eventually(async () => (await queryRows<{ running_owner: string | null }>(databaseUrl, 'SELECT running_owner FROM monitor_checks'))[0]?.running_owner ?? undefined, 60_000);
    await hosts.get(owner)!.close();
    hosts.delete(owner);
    siteDelayMs = 0;
    const afterTakeover = await settled(4);
    const [other] = [...hosts.keys()];
    const finished = await queryRows<{ running_owner: string | null; last_run_at: string }>(databaseUrl, 'SELECT running_owner, last_run_at FROM monitor_checks');
    expect(finished[0]).toMatchObject({ running_owner: null, last_run_at: new Date(T0 + 3 * 60_000).toISOString() });
    expect(other).not.toBe(owner);
    // Each slot ran to its end once: the cut-off run left no record, its slot was run again by the new leader.
    expect(await runsPerSlot()).toEqual([0, 1, 2, 3].map((s) => [new Date(T0 + s * 60_000).toISOString(), 1]));
    expect(afterTakeover.status).toBe('passing');
  });
});

// One service across processes: two browser hosts and two API replicas on one real PostgreSQL. Clients
// talk to replicas only; a create is placed on a host, everything addressed to a session reaches the host
// that runs it through either replica (HTTP, SSE, CDP and BiDi WebSockets, the live view), the limits hold
// across hosts, a host answers nobody but its replicas, and a host that goes silent is declared gone.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import Kernel from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startReplica, type RunningReplica } from '../../src/service/cluster/replica.js';
import { ClusterKey } from '../../src/service/cluster/cluster-key.js';
import { newApiKey } from '../../src/service/ids.js';
import { createDatabase, dropDatabase, queryRows } from '../helpers/postgres.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import { SseReader } from '../helpers/sse.js';
import { replaySkipReason } from '../helpers/replays.js';
import { postgresServer } from '../helpers/stores.js';

const { url: pgServer, missing } = postgresServer();
const suite = pgServer ? describe : describe.skip;
if (!pgServer) console.log(`cluster tests skipped: ${missing}`);

let databaseUrl: string;
let dir: string;
let keyFile: string;
const apiKey = newApiKey();
const hosts: TestService[] = [];
const replicas: RunningReplica[] = [];

/** Calls a replica with the admin key; answers status and parsed body. */
async function call(replica: RunningReplica, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(replica.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

function startHost(id: string, extra: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  return startTestService({
    databaseUrl,
    apiKey,
    cluster: { clusterKeyFile: keyFile, hostId: id, heartbeatMs: 200, hostSilentMs: 2000 },
    blobDir: join(dir, 'blobs'),
    ...extra,
  });
}

/** A session's record as the database holds it. */
async function recordOf(sessionId: string): Promise<{ host_id: string | null; end_reason: string | null; end_detail: string | null } | undefined> {
  return (await sqlRows<{ host_id: string | null; end_reason: string | null; end_detail: string | null }>('SELECT host_id, end_reason, end_detail FROM browsers WHERE id = $1', [sessionId]))[0];
}

const hostOf = async (sessionId: string) => (await recordOf(sessionId))?.host_id ?? null;

suite('a cluster of two hosts and two replicas', () => {
  beforeAll(async () => {
    databaseUrl = await createDatabase(pgServer!);
    dir = await mkdtemp(join(tmpdir(), 'bcs-cluster-'));
    keyFile = join(dir, 'cluster.key');
    await writeFile(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    hosts.push(await startHost('host-1'), await startHost('host-2'));
    for (let i = 0; i < 2; i++) replicas.push(await startReplica({ databaseUrl, clusterKeyFile: keyFile, refreshMs: 100, hostSilentMs: 2000 }));
    await eventually(() => replicas.every((r) => r.hosts().length === 2) || undefined, 10_000);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await Promise.all(hosts.map((h) => h.close()));
    if (databaseUrl) await dropDatabase(databaseUrl);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A session on `host`, created through `via`: placement picks the emptier host, so the other is filled first if need be. */
  async function sessionOn(hostId: string, via: RunningReplica): Promise<{ session_id: string; cdp_ws_url: string; webdriver_ws_url: string; browser_live_view_url: string }> {
    const fillers: string[] = [];
    for (let i = 0; i < 4; i++) {
      await via.refresh();
      const created = await call(via, 'POST', '/browsers', {});
      expect(created.status).toBe(200);
      if ((await hostOf(created.body.session_id)) === hostId) {
        for (const id of fillers) await call(via, 'DELETE', `/browsers/${id}`);
        return created.body;
      }
      fillers.push(created.body.session_id);
    }
    throw new Error(`no session was placed on ${hostId}`);
  }

  it('registers both hosts; one of them leads', async () => {
    const seen = replicas[0]!.hosts();
    expect(seen.map((h) => h.id)).toEqual(['host-1', 'host-2']);
    await eventually(() => (hosts.filter((h) => h.cluster?.isLeader()).length === 1 ? true : undefined), 10_000);
  });

  it('drives a session on host 2 through replica 1: the SDK, Playwright over CDP, BiDi, exec, read_file, the live view', async () => {
    const replica = replicas[0]!;
    const created = await sessionOn('host-2', replica);
    const id = created.session_id;
    // URLs in the answer point at the replica the client used.
    expect(new URL(created.cdp_ws_url).host).toBe(new URL(replica.baseUrl).host);
    const kernel = new Kernel({ apiKey, baseURL: replica.baseUrl, maxRetries: 0 });
    expect((await kernel.browsers.retrieve(id)).session_id).toBe(id);

    const browser = await chromium.connectOverCDP(created.cdp_ws_url);
    try {
      const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
      await page.setContent('<title>on host 2</title>');
      expect(await page.title()).toBe('on host 2');
    } finally {
      await browser.close();
    }

    const bidi = new WebSocket(created.webdriver_ws_url);
    const status = await new Promise<any>((resolve, reject) => {
      bidi.once('open', () => bidi.send(JSON.stringify({ id: 1, method: 'session.status', params: {} })));
      bidi.once('message', (data) => resolve(JSON.parse(String(data))));
      bidi.once('error', reject);
    });
    bidi.close();
    expect(status).toMatchObject({ id: 1, type: 'success' });

    const exec = await call(replica, 'POST', `/browsers/${id}/process/exec`, { command: 'sh', args: ['-c', 'echo from-host-2 > /tmp/cluster.txt; echo ok'] });
    expect(exec.status).toBe(200);
    const read = await fetch(`${replica.baseUrl}/browsers/${id}/fs/read_file?path=${encodeURIComponent('/tmp/cluster.txt')}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('from-host-2\n');

    // An event stream, streamed through the replica as the host writes it.
    const sse = await SseReader.open<{ message: string }>(`${replica.baseUrl}/browsers/${id}/logs/stream?source=path&path=${encodeURIComponent('/tmp/cluster.txt')}`, {
      authorization: `Bearer ${apiKey}`,
    });
    expect(sse.res.status).toBe(200);
    await sse.reader!.waitFor((frame) => frame.message === 'from-host-2');
    await call(replica, 'POST', `/browsers/${id}/process/exec`, { command: 'sh', args: ['-c', 'echo appended >> /tmp/cluster.txt'] });
    await sse.reader!.waitFor((frame) => frame.message === 'appended');
    sse.reader!.close();

    // A page of sessions (served by the leader) shows this one as its own host does.
    const listed = (await call(replicas[1]!, 'GET', '/browsers')).body.find((b: { session_id: string }) => b.session_id === id);
    const own = (await call(replicas[1]!, 'GET', `/browsers/${id}`)).body;
    const still = (b: object) => ({ ...b, uptime_seconds: 0, usage: undefined });
    expect(still(listed)).toEqual(still(own));

    const live = await fetch(created.browser_live_view_url);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/text\/html/);
    // Its socket, piped through the replica: the first screen frame arrives.
    const viewUrl = new URL(created.browser_live_view_url);
    const viewer = new WebSocket(`ws://${viewUrl.host}/browsers/${id}/live?token=${viewUrl.searchParams.get('token')}`);
    const frame = await new Promise<Buffer>((resolve, reject) => {
      viewer.on('message', (data, isBinary) => isBinary && resolve(data as Buffer));
      viewer.once('error', reject);
    });
    viewer.close();
    expect(frame.length).toBeGreaterThan(100);

    // The other replica reaches the same session, by its name too.
    await call(replica, 'PATCH', `/browsers/${id}`, { name: 'named-on-2' });
    expect((await call(replicas[1]!, 'GET', '/browsers/named-on-2')).body.session_id).toBe(id);
    expect((await call(replicas[1]!, 'DELETE', `/browsers/${id}`)).status).toBe(204);
    expect(hosts[1]!.sessions.get(id)).toBeUndefined();
  });

  it.skipIf(replaySkipReason)('records a replay on one host and serves it through any replica, and from the shared volume on another host once the session ended', async () => {
    const created = await sessionOn('host-2', replicas[0]!);
    const id = created.session_id;
    const replay = await call(replicas[0]!, 'POST', `/browsers/${id}/replays`, { framerate: 5 });
    expect(replay.status).toBe(200);
    expect((await call(replicas[1]!, 'POST', `/browsers/${id}/replays/${replay.body.replay_id}/stop`)).status).toBe(200);
    const download = async () => fetch(`${replicas[1]!.baseUrl}/browsers/${id}/replays/${replay.body.replay_id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const first = await download();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).toBe('ftyp');
    await call(replicas[0]!, 'DELETE', `/browsers/${id}`);
    // The file is on the volume the hosts share: the leader (host 1) serves it as well as host 2 did.
    const leader = hosts.find((h) => h.cluster?.isLeader())!;
    const fromLeader = await fetch(`${leader.baseUrl}/browsers/${id}/replays/${replay.body.replay_id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(fromLeader.status).toBe(200);
    expect(Buffer.from(await fromLeader.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('leases pool browsers spread over both hosts through both replicas: 12 parallel acquires of a pool of 3 give 3 leases, the rest wait and are served in order as browsers come back', async () => {
    expect((await call(replicas[0]!, 'POST', '/browser_pools', { name: 'shared', size: 3 })).status).toBe(200);
    await eventually(async () => ((await call(replicas[1]!, 'GET', '/browser_pools/shared')).body.available_count === 3 ? true : undefined), 30_000);
    // The pool is spread over both hosts: one lost takes only its share.
    const spread = async () => {
      const ids = (await call(replicas[0]!, 'GET', '/browsers?limit=100')).body.filter((b: any) => b.pool?.name === 'shared').map((b: any) => b.session_id);
      return Promise.all(ids.map(hostOf));
    };
    expect(new Set(await spread())).toEqual(new Set(['host-1', 'host-2']));
    const acquires = Array.from({ length: 12 }, (_, i) => call(replicas[i % 2]!, 'POST', '/browser_pools/shared/acquire', { acquire_timeout_seconds: 60 }));
    const settled: ({ status: number; body: any } | undefined)[] = Array(12).fill(undefined);
    acquires.forEach((a, i) => void a.then((r) => (settled[i] = r)));
    await eventually(() => (settled.filter(Boolean).length === 3 ? true : undefined), 30_000);
    const held = new Set<string>();
    const take = (r: { status: number; body: any }) => {
      expect(r.status).toBe(200);
      // Never leased twice: a browser is held by one lease at a time.
      expect(held.has(r.body.session_id)).toBe(false);
      held.add(r.body.session_id);
    };
    const seen = new Set<number>();
    const newlyServed = () => settled.flatMap((r, i) => (r && !seen.has(i) ? (seen.add(i), [r]) : []));
    newlyServed().forEach(take);
    expect((await call(replicas[0]!, 'GET', '/browser_pools/shared')).body.acquired_count).toBe(3);
    // Each release serves exactly one waiter, with the browser given back.
    for (let served = 3; served < 12; served++) {
      const giveBack = [...held][0]!;
      held.delete(giveBack);
      expect((await call(replicas[served % 2]!, 'POST', '/browser_pools/shared/release', { session_id: giveBack })).status).toBe(204);
      await eventually(() => (settled.filter(Boolean).length === served + 1 ? true : undefined), 30_000);
      const [next] = newlyServed();
      take(next!);
      expect(next!.body.session_id).toBe(giveBack);
    }
    await Promise.all(acquires);
    // Waiters are served in the order they came, whichever replica each came through.
    const books = await hosts.find((h) => h.cluster?.isLeader())!.pools.find(null, 'shared');
    const queued: Promise<{ status: number; body: any }>[] = [];
    for (let i = 0; i < 6; i++) {
      queued.push(call(replicas[i % 2]!, 'POST', '/browser_pools/shared/acquire', { acquire_timeout_seconds: 60 }));
      await eventually(() => (books.waitingCount === i + 1 ? true : undefined), 10_000);
    }
    const order: number[] = [];
    queued.forEach((q, i) => void q.then(() => order.push(i)));
    for (let i = 0; i < 6; i++) {
      const giveBack = [...held][0]!;
      held.delete(giveBack);
      expect((await call(replicas[i % 2]!, 'POST', '/browser_pools/shared/release', { session_id: giveBack })).status).toBe(204);
      await eventually(() => (order.length === i + 1 ? true : undefined), 30_000);
      take(await queued[order[i]!]!);
    }
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    for (const id of held) await call(replicas[0]!, 'POST', '/browser_pools/shared/release', { session_id: id });
    // A pool browser ended by its own host (here a DELETE, which goes to the host that runs it, not to the
    // leader that keeps the pool's books): the leader sees it from the records and refills.
    const follower = hosts.find((h) => !h.cluster?.isLeader())!.cluster!.hostId;
    const members = (await call(replicas[0]!, 'GET', '/browsers?limit=100')).body.filter((b: any) => b.pool?.name === 'shared');
    const onFollower = (await Promise.all(members.map(async (b: any) => ((await hostOf(b.session_id)) === follower ? b.session_id : undefined)))).find(Boolean);
    expect(onFollower).toBeDefined();
    expect((await call(replicas[1]!, 'DELETE', `/browsers/${onFollower}`)).status).toBe(204);
    await eventually(async () => {
      const pool = (await call(replicas[1]!, 'GET', '/browser_pools/shared')).body;
      const ids = (await call(replicas[0]!, 'GET', '/browsers?limit=100')).body.filter((b: any) => b.pool?.name === 'shared').map((b: any) => b.session_id);
      return pool.available_count === 3 && ids.length === 3 && !ids.includes(onFollower) ? true : undefined;
    }, 30_000);
    expect(new Set(await spread())).toEqual(new Set(['host-1', 'host-2']));
    expect((await call(replicas[1]!, 'DELETE', '/browser_pools/shared')).status).toBe(204);
    // Every browser of the pool ended, on both hosts.
    await eventually(async () => ((await spread()).length === 0 ? true : undefined), 15_000);
  });

  it('starts every lease from the profile as last saved, whichever host saved it', async () => {
    const site = 'https://profile.example';
    const cookieOf = async (cdpUrl: string) => {
      const browser = await chromium.connectOverCDP(cdpUrl);
      try {
        return (await browser.contexts()[0]!.cookies(site)).find((c) => c.name === 'login')?.value;
      } finally {
        await browser.close();
      }
    };
    // A read-write session that ends saves the profile, on whichever host it ran.
    const save = async (value: string, via: RunningReplica) => {
      const writer = (await call(via, 'POST', '/browsers', { profile: { name: 'pooled-profile', save_changes: true } })).body;
      const browser = await chromium.connectOverCDP(writer.cdp_ws_url);
      await browser.contexts()[0]!.addCookies([{ name: 'login', value, url: site, expires: Math.floor(Date.now() / 1000) + 3600 }]);
      await browser.close();
      const before = (await call(via, 'GET', '/profiles/pooled-profile')).body.updated_at;
      expect((await call(via, 'DELETE', `/browsers/${writer.session_id}`)).status).toBe(204);
      await eventually(async () => ((await call(via, 'GET', '/profiles/pooled-profile')).body.updated_at !== before ? true : undefined), 30_000);
    };
    expect((await call(replicas[0]!, 'POST', '/profiles', { name: 'pooled-profile' })).status).toBe(200);
    await save('v1', replicas[0]!);
    expect((await call(replicas[0]!, 'POST', '/browser_pools', { name: 'profiled', size: 2, profile: { name: 'pooled-profile' } })).status).toBe(200);
    await eventually(async () => ((await call(replicas[1]!, 'GET', '/browser_pools/profiled')).body.available_count === 2 ? true : undefined), 30_000);
    const members = (await call(replicas[0]!, 'GET', '/browsers?limit=100')).body.filter((b: any) => b.pool?.name === 'profiled').map((b: any) => b.session_id);
    expect(new Set(await Promise.all(members.map(hostOf)))).toEqual(new Set(['host-1', 'host-2']));
    // Saved on one host: the idle browsers there are replaced at once, those on the other at their lease.
    await save('v2', replicas[1]!);
    const leases = [];
    for (let i = 0; i < 2; i++) leases.push((await call(replicas[i]!, 'POST', '/browser_pools/profiled/acquire', { acquire_timeout_seconds: 60 })).body);
    for (const lease of leases) {
      expect(members).not.toContain(lease.session_id);
      expect(await cookieOf(lease.cdp_ws_url)).toBe('v2');
    }
    expect((await call(replicas[0]!, 'DELETE', '/browser_pools/profiled', { force: true })).status).toBe(204);
  });

  it('holds the concurrency limit across hosts: 40 parallel creates through both replicas admit exactly the limit', async () => {
    expect((await call(replicas[0]!, 'PATCH', '/org/limits', { max_concurrent_sessions: 5 })).status).toBe(200);
    try {
      for (let round = 0; round < 20; round++) {
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call(replicas[i % 2]!, 'POST', '/browsers', {})));
        const admitted = answers.filter((a) => a.status === 200);
        expect(admitted.length).toBe(5);
        expect(answers.filter((a) => a.status === 429).length).toBe(35);
        expect(answers.find((a) => a.status === 429)?.body.code).toBe('concurrency_limit_exceeded');
        await Promise.all(admitted.map((a) => call(replicas[0]!, 'DELETE', `/browsers/${a.body.session_id}`)));
      }
    } finally {
      await call(replicas[0]!, 'PATCH', '/org/limits', { max_concurrent_sessions: null });
    }
  }, 240_000);

  it("audits the client's address as its replica saw it, not one the client made up", async () => {
    const made = await call(replicas[1]!, 'POST', '/org/projects', { name: 'audited' }, { 'x-forwarded-for': '6.6.6.6' });
    expect(made.status).toBe(200);
    const window = `start=${new Date(Date.now() - 60_000).toISOString()}&end=${new Date(Date.now() + 60_000).toISOString()}`;
    const records = (await call(replicas[0]!, 'GET', `/audit-logs?${window}&limit=100`)).body as { request_id: string; client_ip: string; domain: string }[];
    const record = records.find((r) => r.request_id === made.headers.get('x-request-id'));
    expect(record).toMatchObject({ client_ip: '127.0.0.1', domain: new URL(replicas[1]!.baseUrl).host });
  });

  it('refuses a deleted key on every host, once the time a host keeps a key it found (1 s) has passed', async () => {
    const made = await call(replicas[0]!, 'POST', '/org/api_keys', { name: 'short-lived' });
    expect(made.status).toBe(200);
    const withKey = (host: TestService) => fetch(`${host.baseUrl}/org/limits`, { headers: { authorization: `Bearer ${made.body.key}` } }).then((r) => r.status);
    // Each host finds the key and keeps it (hosts answer their own loopback without the cluster key).
    expect(await Promise.all(hosts.map(withKey))).toEqual([200, 200]);
    expect((await call(replicas[1]!, 'DELETE', `/org/api_keys/${made.body.id}`)).status).toBe(204);
    // The 1 s itself is the store test's (an injected clock); here, that the other host lets go at all.
    for (const host of hosts) await eventually(async () => ((await withKey(host)) === 401 ? true : undefined), 15_000);
  });

  it("opens the pool browsers' routes to the cluster key alone: not to an API key, not to loopback", async () => {
    const host = hosts[0]!;
    const list = (headers: Record<string, string>) => fetch(`${host.baseUrl}/_cluster/pool-members`, { headers });
    const refused = await list({ authorization: `Bearer ${apiKey}` });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'cluster_key_required' });
    const withKey = await list({ 'x-bcs-cluster-key': ClusterKey.fromFile(keyFile).header });
    expect(withKey.status).toBe(200);
    expect(Array.isArray(await withKey.json())).toBe(true);
    // Not in the API's document either.
    const doc = (await call(replicas[0]!, 'GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/_cluster'))).toEqual([]);
  });

  it('answers nobody but its replicas and its own loopback', async () => {
    const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!external) return console.log('skipped the off-loopback check: this machine has no non-loopback IPv4 address');
    const guarded = await startHost('host-guard', { host: '0.0.0.0', cluster: { clusterKeyFile: keyFile, hostId: 'host-guard', advertiseUrl: 'http://127.0.0.1:1', heartbeatMs: 200, hostSilentMs: 2000 } });
    try {
      const port = new URL(guarded.baseUrl).port;
      const refused = await fetch(`http://${external}:${port}/browsers`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'cluster_key_required' });
      // A WebSocket too; the metrics alone answer a scraper (with an org-wide key).
      const socket = await new Promise<number>((resolve) => {
        const ws = new WebSocket(`ws://${external}:${port}/browsers/x/cdp?jwt=y`);
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => resolve(-1));
      });
      expect(socket).toBe(403);
      expect((await fetch(`http://${external}:${port}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
      expect((await fetch(`http://${external}:${port}/metrics`)).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('keeps pools serving while a host drains: its idle pool browsers end and are replaced on the others', async () => {
    const host = await startHost('host-drain');
    await eventually(() => (replicas[0]!.hosts().some((h) => h.id === 'host-drain') ? true : undefined), 10_000);
    const leader = hosts.find((h) => h.cluster?.isLeader())!;
    // The leader places by the hosts it read at its last beat: two of its beats after the new host registered.
    const times = async () =>
      (await sqlRows<{ beat: string; joined: string }>('SELECT (SELECT heartbeat_at FROM hosts WHERE id = $1)::text AS beat, (SELECT started_at FROM hosts WHERE id = $2)::text AS joined', [leader.cluster!.hostId, 'host-drain']))[0]!;
    let last = (await times()).joined;
    let seen = 0;
    await eventually(async () => {
      const { beat } = await times();
      if (beat > last) (seen++, (last = beat));
      return seen >= 2 ? true : undefined;
    }, 10_000, 50);
    expect((await call(replicas[0]!, 'POST', '/browser_pools', { name: 'drained', size: 3 })).status).toBe(200);
    const where = async () => {
      const ids = (await call(replicas[0]!, 'GET', '/browsers?limit=100')).body.filter((b: any) => b.pool?.name === 'drained').map((b: any) => b.session_id);
      return (await Promise.all(ids.map(hostOf))).sort();
    };
    await eventually(async () => ((await call(replicas[1]!, 'GET', '/browser_pools/drained')).body.available_count === 3 ? true : undefined), 30_000);
    expect(await where()).toEqual(['host-1', 'host-2', 'host-drain']);
    expect(leader.cluster!.hostId).not.toBe('host-drain');
    const drained = host.drain(30_000);
    // Acquires go on meanwhile, and the pool is back to size without the draining host.
    const lease = await call(replicas[1]!, 'POST', '/browser_pools/drained/acquire', { acquire_timeout_seconds: 30 });
    expect(lease.status).toBe(200);
    expect((await call(replicas[0]!, 'POST', '/browser_pools/drained/release', { session_id: lease.body.session_id })).status).toBe(204);
    await eventually(async () => {
      const hostsNow = await where();
      return hostsNow.length === 3 && !hostsNow.includes('host-drain') && (await call(replicas[1]!, 'GET', '/browser_pools/drained')).body.available_count === 3 ? true : undefined;
    }, 30_000);
    // Nothing of it is in use, so the drain ends well before its grace period.
    await drained;
    expect((await call(replicas[0]!, 'DELETE', '/browser_pools/drained')).status).toBe(204);
  });

  it('declares a silent host gone: its sessions end as host_lost, replicas stop routing to it', async () => {
    const host = await startHost('host-3');
    await eventually(() => (replicas[0]!.hosts().some((h) => h.id === 'host-3') ? true : undefined), 10_000);
    const created = await host.call('POST', '/browsers');
    expect(created.status).toBe(200);
    // Heartbeats stop as a dead host's would (its process still runs here: the test plays a partition).
    await stopBeating(host);
    const id = created.body.session_id;
    const ended = await eventually(async () => ((await recordOf(id))?.end_reason === 'host_lost' ? recordOf(id) : undefined), 15_000);
    expect(ended!.end_detail).toMatch(/stopped answering/);
    // Answered by another host from the record: the session is gone, and its own host ended it too.
    expect((await call(replicas[0]!, 'GET', `/browsers/${id}`)).status).toBe(404);
    await eventually(() => (host.sessions.get(id) === undefined ? true : undefined), 15_000);
    expect(replicas[0]!.hosts().some((h) => h.id === 'host-3')).toBe(false);
    await host.close();
  });
});

const sqlRows = <T extends object>(text: string, values: unknown[]) => queryRows<T>(databaseUrl, text, values);

/** Stops a host's heartbeat without stopping the host (a partition, as the database sees it). */
async function stopBeating(host: TestService): Promise<void> {
  // Heartbeats land in the past from now on: the host looks silent to everyone else.
  await sqlRows(`CREATE OR REPLACE FUNCTION bcs_test_silence() RETURNS trigger AS $$ BEGIN NEW.heartbeat_at := now() - interval '1 hour'; RETURN NEW; END $$ LANGUAGE plpgsql`, []);
  await sqlRows(`CREATE TRIGGER bcs_test_silence BEFORE UPDATE ON hosts FOR EACH ROW WHEN (NEW.id = '${host.cluster!.hostId}') EXECUTE FUNCTION bcs_test_silence()`, []);
}

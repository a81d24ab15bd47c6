// The cluster's small decisions, without processes: where a create goes, who leads, what a host answers,
// how the cluster key is read and compared, what URL and id a host goes by.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaderOf, placeCreate } from '../../src/service/cluster/placement.js';
import { hostGuard, isLoopback } from '../../src/service/cluster/host-guard.js';
import { CLUSTER_KEY_HEADER, ClusterKey } from '../../src/service/cluster/cluster-key.js';
import { advertisedUrl, clusterHostId } from '../../src/service/cluster/host-role.js';
import { SecretsKeyError } from '../../src/service/secrets-box.js';
import type { HostRow } from '../../src/service/store/hosts-repo.js';

const host = (id: string, over: Partial<HostRow> = {}): HostRow => ({
  id,
  url: `http://${id}:8341`,
  max_sessions: 10,
  sessions: 0,
  queued: 0,
  standby_ready: 0,
  draining: false,
  leader: false,
  silent_ms: 100,
  ...over,
});
const none = () => 0;

describe('placeCreate', () => {
  it('prefers a host with a standby browser ready, then the least loaded by sessions over capacity', () => {
    expect(placeCreate([host('a', { sessions: 1 }), host('b', { sessions: 5, standby_ready: 1 })], none)?.id).toBe('b');
    expect(placeCreate([host('a', { sessions: 6 }), host('b', { sessions: 5, max_sessions: 20 })], none)?.id).toBe('b');
    // Ties go by id, so replicas agree.
    expect(placeCreate([host('b'), host('a')], none)?.id).toBe('a');
  });

  it("counts the replica's own creates on their way, so a burst is spread", () => {
    const inFlight = new Map([['a', 3]]);
    expect(placeCreate([host('a'), host('b', { sessions: 1 })], (id) => inFlight.get(id) ?? 0)?.id).toBe('b');
    // A standby browser another create is already on its way to take is not counted as ready.
    expect(placeCreate([host('a', { standby_ready: 1 }), host('b')], (id) => (id === 'a' ? 1 : 0))?.id).toBe('b');
  });

  it('never places on a draining host; when all are full, the least loaded one (its line) gets it', () => {
    expect(placeCreate([host('a', { draining: true }), host('b', { sessions: 9 })], none)?.id).toBe('b');
    expect(placeCreate([host('a', { sessions: 10, queued: 4 }), host('b', { sessions: 10, queued: 1 })], none)?.id).toBe('b');
    expect(placeCreate([host('a', { draining: true })], none)).toBeUndefined();
    expect(placeCreate([], none)).toBeUndefined();
  });

  it('weighs an unbounded host as nearly empty', () => {
    expect(placeCreate([host('a', { sessions: 3 }), host('b', { sessions: 50, max_sessions: null })], none)?.id).toBe('b');
  });
});

describe('leaderOf', () => {
  it('is the host holding the lock; in a failover, any live one not draining', () => {
    expect(leaderOf([host('a'), host('b', { leader: true })])?.id).toBe('b');
    expect(leaderOf([host('a', { draining: true }), host('b')])?.id).toBe('b');
    expect(leaderOf([])).toBeUndefined();
  });
});

describe('the cluster key and the host guard', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bcs-cluster-key-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads 32 bytes raw, base64 or hex; refuses anything else, naming the file', async () => {
    const bytes = randomBytes(32);
    const files = { raw: bytes, base64: bytes.toString('base64'), hex: `${bytes.toString('hex')}\n` };
    const headers = await Promise.all(
      Object.entries(files).map(async ([name, content]) => {
        await writeFile(join(dir, name), content);
        return ClusterKey.fromFile(join(dir, name)).header;
      }),
    );
    expect(new Set(headers).size).toBe(1);
    await writeFile(join(dir, 'short'), 'too short');
    expect(() => ClusterKey.fromFile(join(dir, 'short'))).toThrow(SecretsKeyError);
    expect(() => ClusterKey.fromFile(join(dir, 'short'))).toThrow(/cluster key file .*short holds no 32-byte key/);
    expect(() => ClusterKey.fromFile(join(dir, 'missing'))).toThrow(/cannot read the cluster key file .*missing: ENOENT/);
  });

  it('admits requests carrying the key, or from loopback; derives the same purpose key in every process', () => {
    const bytes = randomBytes(32);
    const key = new ClusterKey(bytes);
    const guard = hostGuard(key);
    expect(guard({ [CLUSTER_KEY_HEADER]: key.header }, '10.0.0.7')).toBe(true);
    expect(guard({ [CLUSTER_KEY_HEADER]: new ClusterKey(randomBytes(32)).header }, '10.0.0.7')).toBe(false);
    expect(guard({}, '10.0.0.7')).toBe(false);
    expect(guard({}, '127.0.0.1')).toBe(true);
    expect(guard({}, '::ffff:127.0.0.1')).toBe(true);
    expect(guard({}, '::1')).toBe(true);
    expect(isLoopback('::ffff:10.0.0.1')).toBe(false);
    expect(isLoopback(undefined)).toBe(false);
    expect(new ClusterKey(bytes).derive('session tokens').equals(key.derive('session tokens'))).toBe(true);
    expect(key.derive('session tokens').equals(key.derive('other'))).toBe(false);
  });
});

describe("a host's address and id", () => {
  it('advertises the URL given, else the address it listens on; every address needs one given', () => {
    expect(advertisedUrl({ clusterKeyFile: 'k', advertiseUrl: 'http://10.0.0.5:8341/' }, { host: '0.0.0.0', port: 8341 })).toBe('http://10.0.0.5:8341');
    expect(advertisedUrl({ clusterKeyFile: 'k' }, { host: '10.0.0.5', port: 8341 })).toBe('http://10.0.0.5:8341');
    expect(advertisedUrl({ clusterKeyFile: 'k' }, { host: '::1', port: 1 })).toBe('http://[::1]:1');
    expect(() => advertisedUrl({ clusterKeyFile: 'k' }, { host: '0.0.0.0', port: 8341 })).toThrow(/--advertise-url/);
  });

  it('is the id given, else the advertised host and port, known before it listens', () => {
    expect(clusterHostId({ clusterKeyFile: 'k', hostId: 'h1' }, { host: '0.0.0.0', port: 0 })).toBe('h1');
    expect(clusterHostId({ clusterKeyFile: 'k', advertiseUrl: 'http://10.0.0.5:8341' }, { host: '0.0.0.0', port: 0 })).toBe('10.0.0.5:8341');
    expect(clusterHostId({ clusterKeyFile: 'k' }, { host: '10.0.0.5', port: 8341 })).toBe('10.0.0.5:8341');
    expect(() => clusterHostId({ clusterKeyFile: 'k' }, { host: '127.0.0.1', port: 0 })).toThrow(/host id or an advertised URL/);
  });
});

// A host's pod deletion cost against a real HTTPS server standing in for the Kubernetes API: what the PATCH
// carries, when one is sent (only on a change, at most once per interval), how a failure is retried and
// logged (never with the token), and how the in-cluster configuration is found.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DELETION_COST_ANNOTATION,
  LEADER_COST,
  PodDeletionCost,
  deletionCost,
  inClusterPod,
  type Clock,
  type InClusterPod,
} from '../../src/service/cluster/pod-deletion-cost.js';

describe('deletionCost', () => {
  it('is the sessions a drain would cut short, the leader above any host', () => {
    expect(deletionCost({ sessions: 0, leader: false })).toBe(0);
    expect(deletionCost({ sessions: 7, leader: false })).toBe(7);
    expect(deletionCost({ sessions: 0, leader: true })).toBe(LEADER_COST);
    // --max-sessions is at most 100,000: a full host still goes before an idle leader.
    expect(deletionCost({ sessions: 0, leader: true })).toBeGreaterThan(deletionCost({ sessions: 100_000, leader: false }));
    expect(deletionCost({ sessions: 3, leader: true })).toBeGreaterThan(deletionCost({ sessions: 2, leader: true }));
  });

  it('stays a whole number in the annotation int32 range', () => {
    expect(deletionCost({ sessions: 2 ** 40, leader: true })).toBe(2 ** 31 - 1);
    expect(deletionCost({ sessions: -3, leader: false })).toBe(0);
    expect(deletionCost({ sessions: Number.NaN, leader: false })).toBe(0);
    expect(deletionCost({ sessions: 2.7, leader: false })).toBe(2);
  });
});

/** A key and certificate for 127.0.0.1, as an API server's serving certificate names its address. */
function makeCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bcs-kube-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=kubernetes', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const opensslMissing = spawnSync('openssl', ['version']).status !== 0 ? 'openssl is not installed: no certificate for the stand-in API server' : false;

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Time that moves only when a test says so, with the timers due by then run in order. */
class ManualClock implements Clock {
  private t = 1_000_000;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private ids = 0;
  now = () => this.t;
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  };
  clearTimeout = (id: unknown) => void this.timers.delete(id as number);
  get pending(): number {
    return this.timers.size;
  }
  advance(ms: number): void {
    this.t += ms;
    for (const [id, timer] of [...this.timers].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at > this.t) continue;
      this.timers.delete(id);
      timer.fn();
    }
  }
}

describe.skipIf(opensslMissing)(`PodDeletionCost against a stand-in API server${opensslMissing ? ` (skipped: ${opensslMissing})` : ''}`, () => {
  const NAMESPACE = 'bcs';
  const POD = 'bcs-host-7d9f8-abcde';
  let tls: { key: string; cert: string };
  let server: Server;
  let dir: string;
  let seen: Seen[];
  /** How the server answers the next PATCHes; 200 once they run out. */
  let answers: Array<{ status: number; body: string }>;
  let logs: Array<{ level: string; obj: object; msg: string }>;
  let reporter: PodDeletionCost | undefined;
  const log = {
    info: (obj: object, msg: string) => void logs.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => void logs.push({ level: 'warn', obj, msg }),
  };
  const token = () => readFileSync(join(dir, 'token'), 'utf8');
  const annotationOf = (s: Seen) => (JSON.parse(s.body) as { metadata: { annotations: Record<string, string> } }).metadata.annotations[DELETION_COST_ANNOTATION];

  beforeAll(async () => {
    tls = makeCert();
    server = createServer(tls, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const answer = answers.shift() ?? { status: 200, body: JSON.stringify({ kind: 'Pod', metadata: { name: POD } }) };
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  beforeEach(() => {
    seen = [];
    answers = [];
    logs = [];
    dir = mkdtempSync(join(tmpdir(), 'bcs-serviceaccount-'));
    writeFileSync(join(dir, 'token'), 'token-one.abc\n');
    writeFileSync(join(dir, 'ca.crt'), tls.cert);
    writeFileSync(join(dir, 'namespace'), NAMESPACE);
  });
  afterEach(async () => {
    await reporter?.close();
    reporter = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The configuration a pod finds, pointed at the stand-in server. */
  function pod(env: Record<string, string> = {}): InClusterPod {
    const { port } = server.address() as AddressInfo;
    const found = inClusterPod({ KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(port), POD_NAME: POD, ...env }, dir);
    if (!found || 'missing' in found) throw new Error(`no in-cluster configuration: ${JSON.stringify(found)}`);
    return found;
  }

  it('PATCHes its own pod with a merge patch of the annotation, as its service account, trusting the cluster CA', async () => {
    reporter = new PodDeletionCost({ ...pod(), load: () => 3, log, clock: new ManualClock() });
    await reporter.check();
    expect(seen).toHaveLength(1);
    const [patch] = seen;
    expect(patch!.method).toBe('PATCH');
    expect(patch!.url).toBe(`/api/v1/namespaces/${NAMESPACE}/pods/${POD}`);
    expect(patch!.headers['content-type']).toBe('application/merge-patch+json');
    expect(patch!.headers.authorization).toBe('Bearer token-one.abc');
    expect(JSON.parse(patch!.body)).toEqual({ metadata: { annotations: { [DELETION_COST_ANNOTATION]: '3' } } });
    expect(logs).toEqual([]);
  });

  it('sends nothing while the cost stays the same, and at most one PATCH per interval, with the latest cost', async () => {
    const clock = new ManualClock();
    let load = 1;
    reporter = new PodDeletionCost({ ...pod(), load: () => load, log, clock, minIntervalMs: 10_000 });
    await reporter.check();
    clock.advance(60_000);
    await reporter.check();
    expect(seen).toHaveLength(1);

    // Two changes inside one interval: the first waits, the second replaces it.
    load = 2;
    await reporter.check();
    expect(seen).toHaveLength(2);
    load = 3;
    clock.advance(4_000);
    await reporter.check();
    load = 5;
    clock.advance(5_999);
    await reporter.check();
    expect(seen).toHaveLength(2);
    clock.advance(1);
    await reporter.check();
    expect(seen.map(annotationOf)).toEqual(['1', '2', '5']);
    // Back to a value sent before is still a change from what the pod holds.
    load = 2;
    clock.advance(10_000);
    await reporter.check();
    expect(seen.map(annotationOf)).toEqual(['1', '2', '5', '2']);
  });

  it('runs on its own timer from start, and close stops it', async () => {
    // Each step waits on a real HTTPS round trip or a promise turn, not on time.
    const fast = { interval: 2 };
    const clock = new ManualClock();
    let load = 0;
    reporter = new PodDeletionCost({ ...pod(), load: () => load, log, clock, checkMs: 1_000, minIntervalMs: 10_000 });
    reporter.start();
    clock.advance(0);
    await expect.poll(() => seen.length, fast).toBe(1);
    load = 6;
    // Looked at every second, sent once the interval since the last PATCH is over.
    for (let s = 1; s < 10; s++) {
      await expect.poll(() => clock.pending, fast).toBe(1);
      clock.advance(1_000);
    }
    expect(seen).toHaveLength(1);
    await expect.poll(() => clock.pending, fast).toBe(1);
    clock.advance(1_000);
    await expect.poll(() => seen.length, fast).toBe(2);
    expect(annotationOf(seen[1]!)).toBe('6');
    await expect.poll(() => clock.pending, fast).toBe(1);
    await reporter.close();
    expect(clock.pending).toBe(0);
    load = 7;
    clock.advance(60_000);
    expect(seen).toHaveLength(2);
  });

  it('retries a failed PATCH later, backing off, logs one warning without the token, and reads the token afresh', async () => {
    const clock = new ManualClock();
    reporter = new PodDeletionCost({ ...pod(), load: () => 9, log, clock, minIntervalMs: 10_000 });
    // An answer that echoes the credential, as a misbehaving proxy might.
    const refusal = { status: 403, body: JSON.stringify({ kind: 'Status', message: `pods "${POD}" is forbidden (Bearer token-one.abc)`, code: 403 }) };
    answers = [refusal, refusal];
    await reporter.check();
    expect(seen).toHaveLength(1);
    const warnings = logs.filter((l) => l.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('is forbidden');
    expect(JSON.stringify(warnings[0])).toContain('403');
    expect(JSON.stringify(logs)).not.toContain('token-one');

    // Not before the retry is due; then again, quietly, and the next wait is longer.
    clock.advance(9_999);
    await reporter.check();
    expect(seen).toHaveLength(1);
    clock.advance(1);
    await reporter.check();
    expect(seen).toHaveLength(2);
    expect(logs.filter((l) => l.level === 'warn')).toHaveLength(1);
    // The kubelet rotated the token meanwhile.
    writeFileSync(join(dir, 'token'), 'token-two.def\n');
    clock.advance(10_000);
    await reporter.check();
    expect(seen).toHaveLength(2);
    clock.advance(10_000);
    await reporter.check();
    expect(seen).toHaveLength(3);
    expect(seen[2]!.headers.authorization).toBe(`Bearer ${token().trim()}`);
    expect(annotationOf(seen[2]!)).toBe('9');
    expect(logs.map((l) => l.level)).toEqual(['warn', 'info']);
    expect(JSON.stringify(logs)).not.toMatch(/token-(one|two)/);
    // Set: nothing more to send.
    clock.advance(60_000);
    await reporter.check();
    expect(seen).toHaveLength(3);
  });

  it('fails, and says so, when the server is not the one the CA vouches for', async () => {
    const other = makeCert();
    writeFileSync(join(dir, 'ca.crt'), other.cert);
    reporter = new PodDeletionCost({ ...pod(), load: () => 1, log, clock: new ManualClock() });
    await reporter.check();
    expect(seen).toEqual([]);
    expect(logs).toHaveLength(1);
    expect(logs[0]!.level).toBe('warn');
    expect((logs[0]!.obj as { err: string }).err).toMatch(/certificate/i);
  });

  it('finds the in-cluster configuration, and says what is missing in a pod not given it', () => {
    const found = pod();
    expect(found.namespace).toBe(NAMESPACE);
    expect(found.name).toBe(POD);
    expect(found.apiUrl).toBe(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(pod({ POD_NAMESPACE: 'elsewhere' }).namespace).toBe('elsewhere');
    expect(inClusterPod({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', POD_NAME: POD }, dir)).toMatchObject({ apiUrl: 'https://[fd00::1]:443' });
    // Outside Kubernetes: nothing to do, nothing to say.
    expect(inClusterPod({ POD_NAME: POD }, dir)).toBeUndefined();
    expect(inClusterPod({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir)).toEqual({ missing: expect.stringContaining('POD_NAME') });
    rmSync(join(dir, 'token'));
    expect(inClusterPod({ KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', POD_NAME: POD }, dir)).toEqual({ missing: expect.stringContaining('token') });
  });
});

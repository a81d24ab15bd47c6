// A host in a Kubernetes pod keeps its pod's `controller.kubernetes.io/pod-deletion-cost` annotation at what
// removing it would cost, so a scale-down takes an idle host before a busy one (the ReplicaSet controller
// deletes the lowest cost first). Without it the ReplicaSet picks by age and node spread, and a host with
// sessions may be the one that drains while an empty one stays.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';

export const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * What leading adds to a host's cost: more than any host's sessions can reach (--max-sessions is at most
 * 100,000), so the leader is removed last. A host's sessions get the whole drain to end on their own, but
 * the leader's once-per-cluster work is not drained: the next leader fails the builds, invocations and login
 * flows it had in flight and refills the pools, which touches clients beyond the leader's own sessions.
 */
export const LEADER_COST = 1_000_000;
const INT32_MAX = 2 ** 31 - 1;
/**
 * Kubernetes asks not to update the annotation on every change of a metric: each PATCH is a pod update
 * every watcher of pods sees. A scale-down acts on demand held for minutes (keda.yaml), so a cost up to
 * this much behind is still right when it is read.
 */
const DEFAULT_MIN_INTERVAL_MS = 10_000;
const DEFAULT_CHECK_MS = 1_000;
const MAX_RETRY_MS = 5 * 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Enough of an error answer to say why; a Status object's message is short. */
const MAX_ANSWER_BYTES = 8 * 1024;

/** The cost of removing a host: the sessions a drain could cut short, and the leader last. */
export function deletionCost(load: { sessions: number; leader: boolean }): number {
  const sessions = Number.isFinite(load.sessions) ? Math.max(0, Math.floor(load.sessions)) : 0;
  return Math.min(INT32_MAX, sessions + (load.leader ? LEADER_COST : 0));
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Where this pod is and how to reach the API server as its service account. */
export interface InClusterPod {
  /** The API server's origin (https://10.96.0.1:443). */
  apiUrl: string;
  namespace: string;
  name: string;
  /** Read at every PATCH: the kubelet rotates the projected token in place. */
  token(): Promise<string>;
  /** The cluster's CA (PEM), read at every PATCH too, since it can be rotated as well. */
  ca(): Promise<Buffer>;
}

/**
 * The in-cluster configuration, as client-go's rest.InClusterConfig finds it, plus the pod's own name from
 * the downward API (POD_NAME; the manifests set it). Undefined outside Kubernetes; `missing` when in a pod
 * that was not given what the PATCH needs.
 */
export function inClusterPod(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): InClusterPod | { missing: string } | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const name = env.POD_NAME;
  if (!name) return { missing: 'POD_NAME (the pod name from the downward API) is not set' };
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) return { missing: `no service account token at ${tokenFile} (automountServiceAccountToken is off)` };
  let namespace = env.POD_NAMESPACE;
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim();
    } catch {
      return { missing: `neither POD_NAMESPACE nor ${join(dir, 'namespace')}` };
    }
  }
  return {
    apiUrl: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    namespace,
    name,
    token: async () => (await readFile(tokenFile, 'utf8')).trim(),
    ca: () => readFile(join(dir, 'ca.crt')),
  };
}

export interface PodDeletionCostDeps extends InClusterPod {
  /** The cost to publish now (see deletionCost). */
  load(): number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** How often load() is looked at (default 1 s); it must be cheap. */
  checkMs?: number;
  /** The least time between two PATCHes (default 10 s); also the first wait after a failure. */
  minIntervalMs?: number;
  requestTimeoutMs?: number;
  clock?: Clock;
}

export class PodDeletionCost {
  private readonly clock: Clock;
  private readonly minIntervalMs: number;
  private readonly abort = new AbortController();
  private timer: unknown;
  private checking: Promise<void> | undefined;
  /** What the annotation holds, as far as this process knows (undefined: it has not set it yet). */
  private sent: number | undefined;
  /** The earliest time the next PATCH may go. */
  private nextAt = -Infinity;
  private failures = 0;
  private closed = false;

  constructor(private readonly deps: PodDeletionCostDeps) {
    this.clock = deps.clock ?? realClock;
    this.minIntervalMs = deps.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  }

  /** The first look is at once: a pod restarted with a stale annotation from its last container is put right. */
  start(): void {
    this.schedule(0);
  }

  /** One look at the load; PATCHes when the cost changed and the last PATCH is far enough behind. */
  check(): Promise<void> {
    return (this.checking ??= this.checkOnce().finally(() => (this.checking = undefined)));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clock.clearTimeout(this.timer);
    // Shutdown does not wait on an API server that is slow to answer: the annotation dies with the pod.
    this.abort.abort();
    await this.checking;
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    this.timer = this.clock.setTimeout(
      () =>
        void this.check()
          .catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, "could not read this host's load for its pod's deletion cost"))
          .finally(() => this.schedule(this.deps.checkMs ?? DEFAULT_CHECK_MS)),
      ms,
    );
  }

  private async checkOnce(): Promise<void> {
    const cost = this.deps.load();
    const now = this.clock.now();
    if (this.closed || cost === this.sent || now < this.nextAt) return;
    try {
      await this.patch(cost);
      this.sent = cost;
      this.nextAt = now + this.minIntervalMs;
      if (this.failures > 0) this.deps.log.info({ pod: this.deps.name, cost, failures: this.failures }, "this pod's deletion cost is set again");
      this.failures = 0;
    } catch (err) {
      if (this.closed) return;
      this.failures++;
      const retryMs = Math.min(this.minIntervalMs * 2 ** (this.failures - 1), MAX_RETRY_MS);
      this.nextAt = now + retryMs;
      // One line per run of failures: a Role that is missing fails every try the same way.
      if (this.failures === 1) {
        this.deps.log.warn(
          { pod: this.deps.name, namespace: this.deps.namespace, api: this.deps.apiUrl, err: (err as Error).message, retry_ms: retryMs },
          `could not set this pod's deletion cost (${DELETION_COST_ANNOTATION}); retrying less often each time, up to every ${MAX_RETRY_MS / 1000} s, and not logging again until it works. ` +
            "A scale-down meanwhile picks hosts regardless of their sessions. If a NetworkPolicy holds the hosts' egress, it must allow the API server (docs/cluster.md)",
        );
      }
    }
  }

  private async patch(cost: number): Promise<void> {
    const [token, ca] = await Promise.all([this.deps.token(), this.deps.ca()]);
    if (!token) throw new Error('the service account token is empty');
    // Whatever an error says is logged: an API server or proxy echoing the request must not put the token there.
    const scrub = (text: string) => text.split(token).join('[token]');
    const { namespace, name } = this.deps;
    const url = new URL(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`, this.deps.apiUrl);
    // A JSON merge patch touches this one annotation and leaves the pod's others as they are.
    const body = JSON.stringify({ metadata: { annotations: { [DELETION_COST_ANNOTATION]: String(cost) } } });
    const timeoutMs = this.deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    await new Promise<void>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'PATCH',
          ca,
          signal: this.abort.signal,
          timeout: timeoutMs,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/merge-patch+json',
            accept: 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('error', (err) => reject(new Error(scrub(err.message))));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve();
            const text = Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES);
            reject(new Error(scrub(`the API server answered ${status}: ${statusMessage(text)}`)));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${url.origin} within ${timeoutMs} ms`)));
      req.on('error', (err) => reject(new Error(scrub(err.message))));
      req.end(body);
    });
  }
}

/** The message of a Kubernetes Status answer, else the start of whatever came back. */
function statusMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: a proxy's page, say
  }
  return text.slice(0, 300) || '(no body)';
}

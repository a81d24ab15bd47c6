// A replica's GET /metrics: the cluster as the replica last read it (hosts, their sessions, slots and
// queues: the autoscaling signal is bcs_cluster_creates_queued) and what the replica forwarded. An
// organization-wide key is needed, as on a host.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { ErrorBody } from '../../api/types.js';
import { bearerToken } from '../auth.js';
import type { ApiKeysRepo } from '../store/api-keys-repo.js';
import type { HostDirectory } from './host-directory.js';
import { scrapedGauge } from '../metrics.js';

export class ReplicaMetrics {
  private readonly registry = new Registry();
  private readonly forwards: Counter<'kind'>;
  private readonly failures: Counter;

  constructor(directory: Pick<HostDirectory, 'live'>) {
    const registers = [this.registry];
    const gauge = scrapedGauge(this.registry);
    const sum = (read: (h: HostDirectory['live'][number]) => number) => () => directory.live.reduce((n, h) => n + read(h), 0);
    gauge('bcs_cluster_hosts', 'Browser hosts heard from lately and not gone.', () => directory.live.length);
    gauge('bcs_cluster_hosts_draining', 'Hosts draining: they take no new sessions.', sum((h) => (h.draining ? 1 : 0)));
    gauge('bcs_cluster_sessions', 'Sessions running on the live hosts (their records).', sum((h) => h.sessions));
    gauge('bcs_cluster_creates_queued', "Creates waiting for a slot on full hosts: the signal to add hosts.", sum((h) => h.queued));
    gauge('bcs_cluster_standby_ready', 'Warm standby browsers ready on the live hosts.', sum((h) => h.standby_ready));
    new Gauge({
      name: 'bcs_cluster_host_sessions',
      help: 'Sessions each live host runs.',
      labelNames: ['host'],
      registers,
      collect() {
        this.reset();
        for (const h of directory.live) this.set({ host: h.id }, h.sessions);
      },
    });
    new Gauge({
      name: 'bcs_cluster_host_max_sessions',
      help: 'Sessions each live host runs at most (hosts with a --max-sessions).',
      labelNames: ['host'],
      registers,
      collect() {
        this.reset();
        for (const h of directory.live) if (h.max_sessions !== null) this.set({ host: h.id }, h.max_sessions);
      },
    });
    this.forwards = new Counter({ name: 'bcs_replica_forwarded_total', help: 'Requests passed to hosts, by kind.', labelNames: ['kind'], registers });
    this.failures = new Counter({ name: 'bcs_replica_host_unreachable_total', help: 'Requests a host could not be reached for.', registers });
    collectDefaultMetrics({ register: this.registry });
  }

  forwarded(kind: 'create' | 'http' | 'websocket'): void {
    this.forwards.inc({ kind });
  }

  unreachable(): void {
    this.failures.inc();
  }

  async serve(req: IncomingMessage, res: ServerResponse, keys: Pick<ApiKeysRepo, 'authenticate'>, now: Date, refuse: (status: number, body: ErrorBody) => void): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    if (!token) return refuse(401, { code: 'unauthorized', message: 'missing API key: send Authorization: Bearer <key>' });
    const record = await keys.authenticate(token, now);
    if (!record) return refuse(401, { code: 'unauthorized', message: 'invalid, expired or deleted API key' });
    if (record.project_id !== null) {
      return refuse(403, { code: 'forbidden', message: `this API key is scoped to project '${record.project_id}'; GET /metrics needs an organization-wide key` });
    }
    const text = await this.registry.metrics();
    res.writeHead(200, { 'content-type': this.registry.contentType }).end(text);
  }
}

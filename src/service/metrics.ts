// The numbers GET /metrics exposes (Prometheus text format, prom-client). What the service holds live
// (sessions, the standby, pools) is read when scraped (each gauge's `collect`), not kept in counters
// updated wherever it changes: a scrape cannot drift from the state it reports, and costs nothing between
// scrapes. Only what is gone once it happened (a create's duration, creates and ends) is counted as it
// happens, in one place each (the session hooks service.ts gives). The autoscaling signal of a cluster
// (issue 27) is `bcs_sessions_launching`: creates admitted and not yet answered.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { browserEndReason } from '../api/schemas/browsers.js';
import type { LivePool, PoolManager } from './host/pools/index.js';
import type { HostCapacity, SessionCreatedListener, SessionEndListener, SessionKind, SessionManager, Standby } from './host/session/index.js';

/** What the route serves: the exposition text and its media type. */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

/** The live state the gauges read at each scrape. */
export interface MetricsSources {
  sessions: Pick<SessionManager, 'activeCounts' | 'creatingCounts'>;
  standby: Pick<Standby, 'available' | 'wanted'>;
  pools: Pick<PoolManager, 'livePools'>;
  capacity: Pick<HostCapacity, 'max' | 'inUse' | 'queued'>;
  /** Whether the host has stopped taking new sessions (draining before a stop). */
  draining: () => boolean;
  /** Monitors' checks as they stand (read from the store once per scrape). */
  checks?: () => Promise<CheckMetric[]>;
}

/** What /metrics says of one check. */
export interface CheckMetric {
  id: string;
  project_id: string | null;
  suite: string;
  name: string;
  status: 'pending' | 'passing' | 'failing' | 'degraded';
  paused: boolean;
  consecutive_failures: number;
  last_duration_ms: number | null;
  last_run_at: string | null;
}

const CHECK_STATUSES = ['pending', 'passing', 'failing', 'degraded'] as const;
const CHECK_LABELS = ['project', 'suite', 'check', 'check_id'] as const;

const KINDS: readonly SessionKind[] = ['on_demand', 'pooled'];
const END_REASONS = browserEndReason.enum;
/** From a standby handoff (milliseconds) through a cold launch (about a second) to a slow one under load. */
const CREATE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];

/** Makes gauges of `registry` that hold one number each, read at the scrape. */
export function scrapedGauge(registry: Registry): (name: string, help: string, read: () => number) => Gauge {
  return (name, help, read) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
}

export class ServiceMetrics implements MetricsExposition {
  /** One per service: tests run many services in one process, and prom-client's global registry is shared. */
  private readonly registry = new Registry();
  private readonly createDuration: Histogram<'kind'>;
  private readonly created: Counter<'kind'>;
  private readonly ended: Counter<'kind' | 'reason'>;
  private readonly refreshChecks: () => Promise<void>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const { sessions, standby, pools, capacity, draining } = sources;
    // Fixed for the service's life: an unbounded host has no such series at all.
    const max = capacity.max;
    if (max !== null) new Gauge({ name: 'bcs_host_max_sessions', help: 'Sessions this host runs at once (--max-sessions).', registers }).set(max);
    const gauge = scrapedGauge(this.registry);
    gauge('bcs_host_sessions', "Slots of the host's capacity in use: sessions running or being created.", () => capacity.inUse);
    gauge('bcs_creates_queued', 'Creates waiting for a free slot on a full host: the signal to add hosts.', () => capacity.queued);
    gauge('bcs_draining', '1 while the host drains: it takes no new sessions and stops once the running ones end.', () => (draining() ? 1 : 0));
    gauge('bcs_standby_ready', 'Warm standby browsers launched and ready for a handoff to a default create.', () => standby.available);
    gauge('bcs_standby_wanted', 'Warm standby browsers the service keeps ready (its standby setting).', () => standby.wanted);
    new Gauge({
      name: 'bcs_sessions_active',
      help: 'Live browser sessions, not ending: on_demand ones, and pooled ones (every pool browser: warming, idle, leased or resetting).',
      labelNames: ['kind'],
      registers,
      collect() {
        const counts = sessions.activeCounts();
        for (const kind of KINDS) this.set({ kind }, counts[kind]);
      },
    });
    new Gauge({
      name: 'bcs_sessions_launching',
      help: 'Creates given a slot and not yet answered (a launch or a standby handoff under way), by kind.',
      labelNames: ['kind'],
      registers,
      collect() {
        const counts = sessions.creatingCounts();
        for (const kind of KINDS) this.set({ kind }, counts[kind]);
      },
    });
    const poolGauge = (name: string, help: string, read: (pool: LivePool) => number) =>
      new Gauge({
        name,
        help,
        // The name alone may repeat across projects; the id keeps each pool its own series.
        labelNames: ['pool', 'pool_id'],
        registers,
        collect() {
          // A deleted pool's series go with it.
          this.reset();
          for (const pool of pools.livePools()) this.set({ pool: pool.row.name ?? pool.id, pool_id: pool.id }, read(pool));
        },
      });
    poolGauge('bcs_pool_size', 'Browsers the pool keeps (its configured size).', (p) => p.row.config.size);
    poolGauge('bcs_pool_idle', 'Idle pool browsers: free for an acquire right now.', (p) => p.availableCount);
    poolGauge('bcs_pool_leased', 'Pool browsers acquired and not yet released.', (p) => p.acquiredCount);
    poolGauge('bcs_pool_pending_acquires', 'Acquires waiting for a pool browser to free up.', (p) => p.waitingCount);
    poolGauge('bcs_pool_launching', 'Pool browsers being launched right now.', (p) => p.launchingCount);
    this.createDuration = new Histogram({
      name: 'bcs_session_create_duration_seconds',
      help: 'How long successful creates took, from the call to the session being live (seconds).',
      labelNames: ['kind'],
      buckets: CREATE_BUCKETS,
      registers,
    });
    this.refreshChecks = checkGauges(registers, sources.checks);
    this.created = new Counter({ name: 'bcs_sessions_created_total', help: 'Sessions created.', labelNames: ['kind'], registers });
    this.ended = new Counter({ name: 'bcs_sessions_ended_total', help: 'Sessions ended, by why.', labelNames: ['kind', 'reason'], registers });
    // Every series from the start, at 0: a rate over a series that appears with its first event misses that event.
    for (const kind of KINDS) {
      this.createDuration.zero({ kind });
      this.created.inc({ kind }, 0);
      for (const reason of END_REASONS) this.ended.inc({ kind, reason }, 0);
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Session hook: a create succeeded. */
  readonly sessionCreated: SessionCreatedListener = (row, seconds) => {
    const kind = kindOf(row.pool_id);
    this.created.inc({ kind });
    this.createDuration.observe({ kind }, seconds);
  };

  /** Session hook: a session started ending (once per session). */
  readonly sessionEnded: SessionEndListener = (session, reason) => {
    this.ended.inc({ kind: kindOf(session.poolId), reason });
  };

  /** The process's metrics, then the service's own. */
  async render(): Promise<string> {
    await this.refreshChecks();
    return (await processMetrics().metrics()) + '\n' + (await this.registry.metrics());
  }
}

/**
 * Per-check series for Prometheus and Grafana, set from one read of the store per scrape (a gauge's own
 * `collect` would read it once per series). Every process on one database shows the same checks: aggregate
 * with max by (check_id) when scraping several.
 */
function checkGauges(registers: Registry[], read: (() => Promise<CheckMetric[]>) | undefined): () => Promise<void> {
  if (!read) return async () => {};
  const labelNames = [...CHECK_LABELS];
  const status = new Gauge({ name: 'bcs_monitor_check_status', help: "1 for the check's current status (pending, passing, failing, degraded), 0 for the others.", labelNames: [...labelNames, 'status'], registers });
  const up = new Gauge({ name: 'bcs_monitor_check_up', help: "1 while the check's last verdict passed (degraded included), 0 while failing; absent before its first run.", labelNames, registers });
  const failures = new Gauge({ name: 'bcs_monitor_check_consecutive_failures', help: 'Runs in a row that failed (0 once one passes).', labelNames, registers });
  const duration = new Gauge({ name: 'bcs_monitor_check_last_duration_seconds', help: "The last run's duration (seconds).", labelNames, registers });
  const lastRun = new Gauge({ name: 'bcs_monitor_check_last_run_timestamp_seconds', help: 'When the last run started (Unix seconds).', labelNames, registers });
  const paused = new Gauge({ name: 'bcs_monitor_check_paused', help: '1 while the check is paused.', labelNames, registers });
  const all = [status, up, failures, duration, lastRun, paused];
  return async () => {
    const checks = await read();
    // A deleted check's series go with it.
    for (const g of all) g.reset();
    for (const c of checks) {
      const labels = { project: c.project_id ?? '', suite: c.suite, check: c.name, check_id: c.id };
      for (const s of CHECK_STATUSES) status.set({ ...labels, status: s }, c.status === s ? 1 : 0);
      if (c.status !== 'pending') up.set(labels, c.status === 'failing' ? 0 : 1);
      failures.set(labels, c.consecutive_failures);
      if (c.last_duration_ms !== null) duration.set(labels, c.last_duration_ms / 1000);
      if (c.last_run_at) lastRun.set(labels, Date.parse(c.last_run_at) / 1000);
      paused.set(labels, c.paused ? 1 : 0);
    }
  };
}

const kindOf = (poolId: string | null): SessionKind => (poolId === null ? 'on_demand' : 'pooled');

let processRegistry: Registry | undefined;

/**
 * CPU, memory, file descriptors, the event loop and GC of this process: one registry per process, made on
 * the first scrape. prom-client's default metrics install a GC observer and an event-loop monitor that
 * cannot be removed, so one per service would pile up in a process that starts many (the tests), and a
 * service never scraped (every `bcs run`) should not pay for them at all.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

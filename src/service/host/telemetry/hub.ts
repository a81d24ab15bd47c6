// Per-session telemetry: which categories are captured, the seq counter, the ring of the last 1024 events
// for live streams, and fan-out to the store (batched), OTLP export and stream subscribers. Producers (the CDP
// collector, the API-call hook, the CDP proxy, the Chromium exit watch) call emit(); whether an event is
// kept is decided here, in one place, from the session's current categories.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BrowserTelemetryConfig, BrowserTelemetryRequest, TelemetryCategory, TelemetryEnvelope, TelemetryEvent } from '../../../api/types.js';
import { invalidField } from '../errors.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { TelemetryRepo } from '../../store/telemetry-repo.js';
import { expectedExit, type ClientConnectionEvents, type ClientProtocol, type LiveSession } from '../session/index.js';
import type { LiveViewEvents } from '../live/index.js';
import { CdpCollector } from './cdp.js';
import type { EgressRefusal } from '../proxy/index.js';
import { egressRefusedEvent } from './egress.js';
import { fitData } from './cdp-map.js';
import {
  captures,
  parseCategories,
  presentCategories,
  resolveCreate,
  resolveUpdate,
  wantsCdp,
  type CategorySet,
} from './config.js';
import type { OtlpExporter } from './otlp.js';

export const RING_SIZE = 1024;
/** How long an ended session's counter stays in memory, so calls that finish after the end (the DELETE) are kept. */
const ENDED_RETENTION_MS = 60_000;
/** A resume older than the ring reads the gap from the store, up to this many events. */
const MAX_BACKFILL = 20_000;
/** How the session log names a client of each protocol. */
const CLIENT_NAMES: Record<ClientProtocol, string> = { cdp: 'CDP', bidi: 'WebDriver BiDi' };

export interface Subscriber {
  event(env: TelemetryEnvelope): void;
  /** The session ended: the stream closes. */
  end(): void;
}

interface State {
  id: string;
  projectId: string | null;
  categories: CategorySet;
  exportDestination: string | null;
  /** What the session was created with; a pool lease's own settings give way to it on release. */
  created: Pending;
  /** Whether the session's telemetry was ever configured (the session object shows it from then on). */
  configured: boolean;
  nextSeq: number;
  ring: TelemetryEnvelope[];
  subscribers: Set<Subscriber>;
  session: LiveSession | undefined;
  collector?: CdpCollector;
  /** Serialises collector starts and stops, which PATCH and the start hook can both ask for. */
  collectorWork: Promise<void>;
  /** The last settings write: each follows the one before, so the stored settings are the latest. */
  saved: Promise<void>;
}

interface Pending {
  categories: CategorySet;
  exportDestination: string | null;
}

export interface TelemetryHubDeps {
  repo: TelemetryRepo;
  exporter: OtlpExporter;
  /** A line for the session's `service` log. */
  sessionLog(sessionId: string, message: string): void;
  log: { warn(obj: object, msg: string): void };
}

export type EventSource = TelemetryEvent['source'];

export class TelemetryHub {
  private readonly states = new Map<string, State>();
  /** The create request's settings, visible to the start hook that runs inside that create. */
  private readonly creating = new AsyncLocalStorage<Pending>();

  constructor(private readonly deps: TelemetryHubDeps) {}

  /**
   * Validates a create's `telemetry` (400s name it `field`), then runs `create` so that the session it
   * starts captures from its first moment.
   */
  withCreate<T>(req: BrowserTelemetryRequest | null | undefined, field: string, create: () => Promise<T>): Promise<T> {
    return this.creating.run(this.createSettings(req, field), create);
  }

  /** Throws the 400 a create with these settings would get (pool create and update check early). */
  validate(req: BrowserTelemetryRequest | null | undefined, field: string): void {
    this.createSettings(req, field);
  }

  /** A pool browser's lease ended: back to the settings it was launched with. */
  async restoreCreated(id: string): Promise<void> {
    const state = this.states.get(id);
    if (!state?.session) return;
    const { categories, exportDestination } = state.created;
    if (state.categories === categories && state.exportDestination === exportDestination) return;
    state.categories = categories;
    state.exportDestination = exportDestination;
    await this.save(state);
    await this.syncCollector(state);
  }

  /**
   * Applies create semantics to a session that is already running: for browsers launched before their
   * request existed (a pool lease handing out a parked browser with the pool's or the acquire's settings).
   */
  async applyCreate(id: string, req: BrowserTelemetryRequest | null | undefined, field: string): Promise<void> {
    const settings = this.createSettings(req, field);
    const state = this.states.get(id);
    if (!state?.session) return;
    state.categories = settings.categories;
    state.exportDestination = settings.exportDestination;
    await this.save(state);
    await this.syncCollector(state);
  }

  private createSettings(req: BrowserTelemetryRequest | null | undefined, field: string): Pending {
    const categories = resolveCreate(req, field);
    const exportDestination = req?.export?.otlp.destination ?? null;
    if (exportDestination !== null && !this.deps.exporter.has(exportDestination)) {
      const known = this.deps.exporter.names();
      throw invalidField(
        `${field}.export.otlp.destination`,
        `unknown destination '${exportDestination}'${known.length ? `; configured: ${known.join(', ')}` : '; none are configured'}`,
      );
    }
    return { categories, exportDestination };
  }

  /** A session start hook: registers the session and, when a CDP category is on, attaches the collector. */
  readonly onSessionStart = async (session: LiveSession, row: BrowserRow): Promise<void> => {
    const pending = this.creating.getStore() ?? { categories: null, exportDestination: null };
    const state: State = {
      id: session.id,
      projectId: row.project_id,
      categories: pending.categories,
      exportDestination: pending.exportDestination,
      created: pending,
      configured: false,
      nextSeq: 1,
      ring: [],
      subscribers: new Set(),
      session,
      collectorWork: Promise.resolve(),
      saved: Promise.resolve(),
    };
    this.states.set(session.id, state);
    const saved = state.categories || state.exportDestination ? this.save(state) : undefined;
    // Registered before the session manager's own exit watch (so before any await here), so it sees an
    // unexpected exit as one.
    this.watchExit(session);
    session.cleanups.push(() => this.onSessionEnd(state));
    if (state.categories) this.deps.sessionLog(session.id, `telemetry capturing: ${[...state.categories].join(', ')}`);
    await saved;
    await this.syncCollector(state);
  };

  /** A restart hook: the collector attaches to the session's new Chromium, whose exit is watched in turn. */
  readonly onRestart = async (session: LiveSession): Promise<void> => {
    const state = this.states.get(session.id);
    if (!state?.session) return;
    this.watchExit(session);
    state.collectorWork = state.collectorWork.then(() => {
      state.collector?.close();
      state.collector = undefined;
    });
    await this.syncCollector(state);
  };

  /** An exit of the session's current Chromium that nobody asked for is an event (service_crashed). */
  private watchExit(session: LiveSession): void {
    const { chromium } = session;
    void chromium.exited.then((info) => {
      if (expectedExit(session, chromium)) return;
      const how = info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`;
      const said = chromium.stderrTail().trim().split('\n').slice(-1)[0]?.slice(0, 300);
      this.emit(session.id, 'system', 'service_crashed', { kind: 'local_process', event: 'chromium_exit' }, {
        phase: 'running',
        service_name: 'chromium',
        pid: chromium.pid,
        exit_code: info.code,
        signal: info.signal,
        reason: `chromium ${how}${said ? ` (last output: ${said})` : ''}`,
      });
    });
  }

  /**
   * Validates a PATCH's `telemetry` field now (before anything else of the PATCH is applied) and returns
   * the step that applies it, or undefined when it changes nothing.
   */
  prepareUpdate(id: string, req: BrowserTelemetryRequest | null | undefined, field: string): (() => Promise<void>) | undefined {
    const state = this.states.get(id);
    const next = resolveUpdate(state?.categories ?? null, req, field);
    if (next === 'unchanged' || !state?.session) return undefined;
    return async () => {
      state.categories = next;
      await this.save(state);
      this.deps.sessionLog(id, next ? `telemetry capturing: ${[...next].join(', ')}` : 'telemetry capture stopped');
      await this.syncCollector(state);
    };
  }

  /** Each session's `telemetry`, for those that ever had any; ended sessions' settings in one query. */
  async present(ids: readonly string[]): Promise<Map<string, BrowserTelemetryConfig>> {
    const untracked = ids.filter((id) => !this.states.has(id));
    const stored = untracked.length ? await this.deps.repo.settingsOf(untracked) : new Map<string, never>();
    const configs = new Map<string, BrowserTelemetryConfig>();
    for (const id of ids) {
      const state = this.states.get(id);
      const settings = stored.get(id);
      if (state ? !state.configured : !settings) continue;
      const categories = state ? state.categories : parseCategories(settings?.categories ?? null);
      const destination = state ? state.exportDestination : (settings?.export_destination ?? null);
      const config: BrowserTelemetryConfig = { browser: presentCategories(categories) };
      if (destination) config.export = { otlp: { destination, ...this.deps.exporter.statusOf(id) } };
      configs.set(id, config);
    }
    return configs;
  }

  /** The id of a session this hub tracks, by id or (through `byName`) by active name, within a project. */
  resolve(idOrName: string, projectId: string | null, byName: (name: string) => string | undefined): string | undefined {
    const state = this.states.get(idOrName) ?? this.states.get(byName(idOrName) ?? '');
    return state && state.projectId === projectId ? state.id : undefined;
  }

  /** Records one event if the session captures its category. Never throws, never waits. */
  emit(id: string, category: TelemetryCategory, type: string, source: EventSource, data?: Record<string, unknown>): void {
    const state = this.states.get(id);
    if (!state || !captures(state.categories, category)) return;
    const event: TelemetryEvent = { type, category, ts: nowMicros(), source };
    if (data) {
      const fitted = fitData(stripUndefined(data));
      event.data = fitted.data;
      if (fitted.truncated) event.truncated = true;
    }
    const env: TelemetryEnvelope = { seq: state.nextSeq++, event };
    if (state.session) {
      state.ring.push(env);
      if (state.ring.length > RING_SIZE) state.ring.shift();
      for (const sub of state.subscribers) {
        try {
          sub.event(env);
        } catch {
          state.subscribers.delete(sub); // a broken stream must not stop capture for the others
        }
      }
    }
    this.deps.repo.add(id, env);
    if (state.exportDestination) this.deps.exporter.add(id, state.exportDestination, env);
  }

  /** An API call that touched the session (the control category), recorded when its response is sent. */
  apiCall(id: string, call: { operation_id: string; status: number; duration_ms: number; request_id: string }): void {
    this.emit(id, 'control', 'api_call', { kind: 'kernel_api' }, call);
    this.deps.sessionLog(id, `${call.operation_id} -> ${call.status} (${call.duration_ms} ms, ${call.request_id})`);
  }

  /** A connection of the session the egress policy refused: a failed request of the network category (egress.ts). */
  egressRefused(id: string, refusal: EgressRefusal): void {
    const { type, source, data } = egressRefusedEvent(refusal);
    this.emit(id, 'network', type, source, data);
  }

  /**
   * Client connections to the browser (the connection category). A BiDi client is, underneath, a CDP
   * client the service runs for it, so it is reported with the same events, told apart by their source.
   */
  readonly connections: ClientConnectionEvents = {
    connected: (id, protocol) => {
      this.emit(id, 'connection', 'cdp_connect', { kind: 'kernel_api', event: `${protocol}_proxy` });
      this.deps.sessionLog(id, `${CLIENT_NAMES[protocol]} client connected`);
    },
    disconnected: (id, info, protocol) => {
      this.emit(id, 'connection', 'cdp_disconnect', { kind: 'kernel_api', event: `${protocol}_proxy` }, { ...info });
      this.deps.sessionLog(id, `${CLIENT_NAMES[protocol]} client disconnected: ${info.reason} after ${info.duration_ms} ms, ${info.message_count} messages`);
    },
  };

  /** Live view connections (the connection category, as the hosted service reports them). */
  readonly liveViews: LiveViewEvents = {
    connected: (id, { mode }) => {
      this.emit(id, 'connection', 'live_view_connect', { kind: 'kernel_api', event: 'live_view' }, { mode });
      this.deps.sessionLog(id, `live view opened (${mode})`);
    },
    disconnected: (id, info) => {
      this.emit(id, 'connection', 'live_view_disconnect', { kind: 'kernel_api', event: 'live_view' }, { ...info });
      this.deps.sessionLog(id, `live view closed: ${info.reason} after ${info.duration_ms} ms, ${info.input_count} inputs`);
    },
  };

  /** Whether the session is running (its stream can be opened). */
  isLive(id: string): boolean {
    return !!this.states.get(id)?.session;
  }

  /**
   * Subscribes to a live session's events. `afterSeq` resumes after that seq (from the ring, or the store for
   * what the ring no longer holds); `replayAll` starts at the oldest event in the ring; neither: new only.
   */
  async subscribe(
    id: string,
    from: { afterSeq?: number; replayAll?: boolean },
    sub: Subscriber,
  ): Promise<{ backlog: TelemetryEnvelope[]; stop: () => void }> {
    const state = this.states.get(id);
    if (!state?.session) {
      queueMicrotask(() => sub.end());
      return { backlog: [], stop: () => {} };
    }
    let backlog: TelemetryEnvelope[] = [];
    if (from.afterSeq !== undefined) {
      const after = from.afterSeq;
      const oldest = state.ring[0]?.seq ?? state.nextSeq;
      if (after + 1 < oldest) return this.resume(state, after, oldest, sub);
      backlog = state.ring.filter((e) => e.seq > after);
    } else if (from.replayAll) {
      backlog = [...state.ring];
    }
    state.subscribers.add(sub);
    return { backlog, stop: () => state.subscribers.delete(sub) };
  }

  /**
   * A resume from before the ring: the gap is read from the store while events that arrive meanwhile are
   * held, then the stored part, the ring as it was and the held events follow each other without a gap or
   * a repeat.
   */
  private async resume(state: State, after: number, oldest: number, sub: Subscriber): Promise<{ backlog: TelemetryEnvelope[]; stop: () => void }> {
    const ring = state.ring.filter((e) => e.seq > after);
    const held: TelemetryEnvelope[] = [];
    let ended = false;
    const holder: Subscriber = { event: (env) => held.push(env), end: () => (ended = true) };
    state.subscribers.add(holder);
    let stored: TelemetryEnvelope[];
    try {
      stored = await this.deps.repo.between(state.id, after, oldest, MAX_BACKFILL);
    } finally {
      state.subscribers.delete(holder);
    }
    const backlog = [...stored, ...ring, ...held];
    if (ended || !state.session) {
      // After the caller has sent the backlog (it continues in a microtask; this runs after those).
      setImmediate(() => sub.end());
      return { backlog, stop: () => {} };
    }
    state.subscribers.add(sub);
    return { backlog, stop: () => state.subscribers.delete(sub) };
  }

  /** Writes what is queued and sends what export still holds (service shutdown). */
  async close(): Promise<void> {
    for (const state of this.states.values()) state.collector?.close();
    await Promise.all([...this.states.values()].map((state) => state.saved));
    await this.deps.repo.flush();
    await this.deps.exporter.close();
  }

  private onSessionEnd(state: State): void {
    state.session = undefined;
    state.collector?.close();
    state.collector = undefined;
    state.ring = [];
    for (const sub of state.subscribers) sub.end();
    state.subscribers.clear();
    // Never rejects (the repository logs a failed write): nothing here may keep the session from ending.
    void this.deps.repo.flush();
    setTimeout(() => this.states.get(state.id) === state && this.states.delete(state.id), ENDED_RETENTION_MS).unref();
  }

  /** Stores the session's settings as they are now, after any earlier write of them; the caller awaits it. */
  private save(state: State): Promise<void> {
    state.configured = true;
    const settings = { categories: state.categories ? [...state.categories] : null, export_destination: state.exportDestination };
    const write = state.saved.then(() => this.deps.repo.saveSettings(state.id, settings));
    state.saved = write.catch(() => undefined);
    return write;
  }

  /** Starts the collector when a CDP category is wanted and it is not running; stops it when none is. */
  private syncCollector(state: State): Promise<void> {
    state.collectorWork = state.collectorWork.then(async () => {
      const session = state.session;
      if (!session || session.ending) return;
      if (!wantsCdp(state.categories)) {
        state.collector?.close();
        state.collector = undefined;
        return;
      }
      if (state.collector) return state.collector.refresh().catch(() => undefined);
      try {
        const sink = (category: TelemetryCategory, type: string, cdpEvent: string, data: Record<string, unknown>) =>
          this.emit(state.id, category, type, { kind: 'cdp', event: cdpEvent }, data);
        state.collector = await CdpCollector.start(session.chromium.wsEndpoint, sink, () => state.categories);
        if (!state.session) state.collector.close();
      } catch (err) {
        this.deps.log.warn({ session_id: state.id, err: (err as Error).message }, 'telemetry could not attach to the browser');
        this.deps.sessionLog(state.id, `telemetry could not attach to the browser: ${(err as Error).message}`);
        this.emit(state.id, 'monitor', 'monitor_init_failed', { kind: 'kernel_api' }, { step: 'Target.setAutoAttach', error: (err as Error).message });
      }
    });
    return state.collectorWork;
  }
}

let lastTs = 0;
/** Wall-clock microseconds, strictly increasing within the process so ts never runs against seq. */
function nowMicros(): number {
  lastTs = Math.max(lastTs + 1, Date.now() * 1000);
  return lastTs;
}

function stripUndefined(data: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(data)) if (data[key] === undefined) delete data[key];
  return data;
}

// Per-session telemetry: which categories are captured, the seq counter, the ring of the last 1024 events
// for live streams, and fan-out to the store (batched), OTLP export and stream subscribers. Producers (the CDP
// collector, the API-call hook, the CDP proxy, the Chromium exit watch) call emit(); whether an event is
// kept is decided here, in one place, from the session's current categories.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { BrowserTelemetryConfig, BrowserTelemetryRequest, TelemetryCategory, TelemetryEnvelope } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { TelemetryRepo } from '../../store/telemetry-repo.js';
import type { ClientConnectionEvents, LiveSession } from '../session/index.js';
import type { LiveViewEvents } from '../live/index.js';
import type { EgressRefusal } from '../proxy/index.js';
import { egressRefusedEvent } from './egress.js';
import { captures, resolveUpdate } from './config.js';
import type { OtlpExporter } from './otlp.js';
import { newState, type Pending, type State, type Subscriber } from './session-state.js';
import { endStream, publish, subscribe, type Subscription } from './live-stream.js';
import { eventOf, type Emit, type EventSource } from './event-record.js';
import { clientConnectionEvents, liveViewEvents } from './client-events.js';
import { watchChromiumExit } from './crash-event.js';
import { createSettings, presentSettings, saveSettings } from './settings.js';
import { closeCollector, syncCollector } from './collector-sync.js';

export { RING_SIZE } from './live-stream.js';
export type { Subscriber } from './session-state.js';
export type { EventSource } from './event-record.js';

/** How long an ended session's counter stays in memory, so calls that finish after the end (the DELETE) are kept. */
const ENDED_RETENTION_MS = 60_000;

export interface TelemetryHubDeps {
  repo: TelemetryRepo;
  exporter: OtlpExporter;
  /** A line for the session's `service` log. */
  sessionLog(sessionId: string, message: string): void;
  log: { warn(obj: object, msg: string): void };
}

export class TelemetryHub {
  private readonly states = new Map<string, State>();
  /** The create request's settings, visible to the start hook that runs inside that create. */
  private readonly creating = new AsyncLocalStorage<Pending>();
  private readonly emitEvent: Emit = (id, category, type, source, data) => this.emit(id, category, type, source, data);
  private readonly sessionLog = (id: string, message: string): void => this.deps.sessionLog(id, message);

  constructor(private readonly deps: TelemetryHubDeps) {}

  /**
   * Validates a create's `telemetry` (400s name it `field`), then runs `create` so that the session it
   * starts captures from its first moment.
   */
  withCreate<T>(req: BrowserTelemetryRequest | null | undefined, field: string, create: () => Promise<T>): Promise<T> {
    return this.creating.run(createSettings(this.deps.exporter, req, field), create);
  }

  /** Throws the 400 a create with these settings would get (pool create and update check early). */
  validate(req: BrowserTelemetryRequest | null | undefined, field: string): void {
    createSettings(this.deps.exporter, req, field);
  }

  /** A pool browser's lease ended: back to the settings it was launched with. */
  async restoreCreated(id: string): Promise<void> {
    const state = this.states.get(id);
    if (!state?.session) return;
    const { categories, exportDestination } = state.created;
    if (state.categories === categories && state.exportDestination === exportDestination) return;
    await this.switchTo(state, { categories, exportDestination });
  }

  /**
   * Applies create semantics to a session that is already running: for browsers launched before their
   * request existed (a pool lease handing out a parked browser with the pool's or the acquire's settings).
   */
  async applyCreate(id: string, req: BrowserTelemetryRequest | null | undefined, field: string): Promise<void> {
    const settings = createSettings(this.deps.exporter, req, field);
    const state = this.states.get(id);
    if (!state?.session) return;
    await this.switchTo(state, settings);
  }

  /**
   * A running session's settings replaced (a lease begins or ends). Events its pages sent before are judged
   * by the settings they were sent under, however late they arrive: they are let in first.
   */
  private async switchTo(state: State, settings: Pick<State, 'categories' | 'exportDestination'>): Promise<void> {
    await state.collector?.flush();
    state.categories = settings.categories;
    state.exportDestination = settings.exportDestination;
    await this.save(state);
    await this.syncCollector(state);
  }

  /** A session start hook: registers the session and, when a CDP category is on, attaches the collector. */
  readonly onSessionStart = async (session: LiveSession, row: BrowserRow): Promise<void> => {
    const pending = this.creating.getStore() ?? { categories: null, exportDestination: null };
    const state = newState(session, row, pending);
    this.states.set(session.id, state);
    const saved = state.categories || state.exportDestination ? this.save(state) : undefined;
    // Registered before the session manager's own exit watch (so before any await here), so it sees an
    // unexpected exit as one.
    watchChromiumExit(session, this.emitEvent);
    session.cleanups.push(() => this.onSessionEnd(state));
    if (state.categories) this.deps.sessionLog(session.id, `telemetry capturing: ${[...state.categories].join(', ')}`);
    await saved;
    await this.syncCollector(state);
  };

  /** A restart hook: the collector attaches to the session's new Chromium, whose exit is watched in turn. */
  readonly onRestart = async (session: LiveSession): Promise<void> => {
    const state = this.states.get(session.id);
    if (!state?.session) return;
    watchChromiumExit(session, this.emitEvent);
    state.collectorWork = state.collectorWork.then(() => closeCollector(state));
    await this.syncCollector(state);
  };

  /**
   * Validates a PATCH's `telemetry` field now (before anything else of the PATCH is applied) and returns
   * the step that applies it, or undefined when it changes nothing.
   */
  prepareUpdate(id: string, req: BrowserTelemetryRequest | null | undefined, field: string): (() => Promise<void>) | undefined {
    const state = this.states.get(id);
    const next = resolveUpdate(state?.categories ?? null, req, field);
    if (next === 'unchanged' || !state?.session) return undefined;
    return async () => {
      await state.collector?.flush();
      state.categories = next;
      await this.save(state);
      this.deps.sessionLog(id, next ? `telemetry capturing: ${[...next].join(', ')}` : 'telemetry capture stopped');
      await this.syncCollector(state);
    };
  }

  /** Each session's `telemetry`, for those that ever had any; ended sessions' settings in one query. */
  present(ids: readonly string[]): Promise<Map<string, BrowserTelemetryConfig>> {
    return presentSettings(ids, this.states, this.deps.repo, this.deps.exporter);
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
    const event = eventOf(category, type, source, data);
    const env: TelemetryEnvelope = { seq: state.nextSeq++, event };
    if (state.session) publish(state, env);
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

  /** Client connections to the browser (the connection category; client-events.ts). */
  readonly connections: ClientConnectionEvents = clientConnectionEvents(this.emitEvent, this.sessionLog);

  /** Live view connections (the connection category, as the hosted service reports them). */
  readonly liveViews: LiveViewEvents = liveViewEvents(this.emitEvent, this.sessionLog);

  /** Whether the session is running (its stream can be opened). */
  isLive(id: string): boolean {
    return !!this.states.get(id)?.session;
  }

  /**
   * Subscribes to a live session's events. `afterSeq` resumes after that seq (from the ring, or the store for
   * what the ring no longer holds); `replayAll` starts at the oldest event in the ring; neither: new only.
   */
  subscribe(id: string, from: { afterSeq?: number; replayAll?: boolean }, sub: Subscriber): Promise<Subscription> {
    return subscribe(this.states.get(id), from, sub, this.deps.repo);
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
    closeCollector(state);
    endStream(state);
    // Never rejects (the repository logs a failed write): nothing here may keep the session from ending.
    void this.deps.repo.flush();
    setTimeout(() => this.states.get(state.id) === state && this.states.delete(state.id), ENDED_RETENTION_MS).unref();
  }

  private save(state: State): Promise<void> {
    return saveSettings(this.deps.repo, state);
  }

  private syncCollector(state: State): Promise<void> {
    return syncCollector(state, { emit: this.emitEvent, log: this.deps.log, sessionLog: this.sessionLog });
  }
}

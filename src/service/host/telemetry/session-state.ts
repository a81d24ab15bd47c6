// What the telemetry hub keeps of each session: its settings, the seq counter, the ring and subscribers of
// its live stream, and its CDP collector. It outlives the session a little (hub.ts ENDED_RETENTION_MS).
import type { TelemetryEnvelope } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { LiveSession } from '../session/index.js';
import type { CdpCollector } from './cdp.js';
import type { CategorySet } from './config.js';

/** A live stream's reader (live-stream.ts). */
export interface Subscriber {
  event(env: TelemetryEnvelope): void;
  /** The session ended: the stream closes. */
  end(): void;
}

export interface State {
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

export interface Pending {
  categories: CategorySet;
  exportDestination: string | null;
}

/** The state of a session that starts now, with the settings of the create that started it. */
export function newState(session: LiveSession, row: BrowserRow, pending: Pending): State {
  return {
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
}

// The CDP collector (cdp.ts) of a session runs while one of its CDP categories is captured, attached to
// the session's current Chromium. Starts and stops are chained on the session's state, as PATCH, the start
// hook and a restart can each ask for one.
import type { TelemetryCategory } from '../../../api/types.js';
import { CdpCollector } from './cdp.js';
import { wantsCdp } from './config.js';
import type { Emit } from './event-record.js';
import type { State } from './session-state.js';

export interface CollectorDeps {
  emit: Emit;
  log: { warn(obj: object, msg: string): void };
  sessionLog(sessionId: string, message: string): void;
}

/** Starts the collector when a CDP category is wanted and it is not running; stops it when none is. */
export function syncCollector(state: State, deps: CollectorDeps): Promise<void> {
  state.collectorWork = state.collectorWork.then(async () => {
    const session = state.session;
    if (!session || session.ending) return;
    if (!wantsCdp(state.categories)) {
      closeCollector(state);
      return;
    }
    if (state.collector) return state.collector.refresh().catch(() => undefined);
    try {
      const sink = (category: TelemetryCategory, type: string, cdpEvent: string, data: Record<string, unknown>) =>
        deps.emit(state.id, category, type, { kind: 'cdp', event: cdpEvent }, data);
      state.collector = await CdpCollector.start(session.chromium.wsEndpoint, sink, () => state.categories);
      if (!state.session) state.collector.close();
    } catch (err) {
      deps.log.warn({ session_id: state.id, err: (err as Error).message }, 'telemetry could not attach to the browser');
      deps.sessionLog(state.id, `telemetry could not attach to the browser: ${(err as Error).message}`);
      deps.emit(state.id, 'monitor', 'monitor_init_failed', { kind: 'kernel_api' }, { step: 'Target.setAutoAttach', error: (err as Error).message });
    }
  });
  return state.collectorWork;
}

/** Detaches the session's collector: the session ended, its Chromium was replaced, or no CDP category is captured. */
export function closeCollector(state: State): void {
  state.collector?.close();
  state.collector = undefined;
}

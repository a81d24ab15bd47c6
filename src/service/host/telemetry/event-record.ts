// One telemetry event as it is recorded: stamped with a time that never runs against its seq, its data
// without undefined fields and fitted to the size an event may have (cdp-map.ts).
import type { TelemetryCategory, TelemetryEvent } from '../../../api/types.js';
import { fitData } from './cdp-map.js';

export type EventSource = TelemetryEvent['source'];

/** How producers record an event of a session (TelemetryHub.emit). */
export type Emit = (id: string, category: TelemetryCategory, type: string, source: EventSource, data?: Record<string, unknown>) => void;

export function eventOf(category: TelemetryCategory, type: string, source: EventSource, data?: Record<string, unknown>): TelemetryEvent {
  const event: TelemetryEvent = { type, category, ts: nowMicros(), source };
  if (data) {
    const fitted = fitData(stripUndefined(data));
    event.data = fitted.data;
    if (fitted.truncated) event.truncated = true;
  }
  return event;
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

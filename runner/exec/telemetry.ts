// Attaches the console errors and failed requests the service captured to the step that was running
// when each happened, so a report shows them where they belong.
import type { CloudClient } from '../../src/api/client.js';
import type { StepResult, TelemetryNote } from '../reporters/results.js';

interface TelemetryEvent {
  seq?: number;
  event?: { type?: string; category?: string; ts?: number; data?: Record<string, unknown> };
}

/** Reads every page of the session's events and attaches the notable ones; returns how many it attached. */
export async function attachTelemetry(
  client: CloudClient,
  path: string,
  query: Record<string, string>,
  steps: StepResult[],
  signal: AbortSignal,
): Promise<number> {
  let attached = 0;
  for await (const item of client.paginate<TelemetryEvent>(path, query)) {
    if (signal.aborted) break;
    const note = notable(item);
    if (!note) continue;
    const step = stepAt(steps, Date.parse(note.at));
    if (!step) continue;
    (step.telemetry ??= []).push(note);
    attached++;
  }
  return attached;
}

/** Console errors, uncaught exceptions, failed loads and HTTP error responses; everything else is noise here. */
export function notable(item: TelemetryEvent): TelemetryNote | undefined {
  const e = item.event;
  if (!e?.type || typeof e.ts !== 'number') return undefined;
  const data = e.data ?? {};
  // The browser's own time of the event when it gave one: `ts` is when it reached the service, which can
  // trail under load past the end of the step that caused it.
  const at = new Date((typeof data.browser_ts === 'number' ? data.browser_ts : e.ts) / 1000).toISOString();
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v)).slice(0, 500);
  if (e.type === 'console_error') return { type: e.type, at, message: text(data.message ?? data.text ?? data.args ?? data) };
  if (e.type === 'network_loading_failed') {
    return { type: e.type, at, message: `${text(data.url)} failed: ${text(data.error_text ?? data.errorText ?? data.error ?? 'failed')}` };
  }
  const status = Number(data.status);
  // Chromium asks every site for a favicon on its own; a site without one is not the scenario's failure.
  if (typeof data.url === 'string' && new URL(data.url, 'http://x').pathname === '/favicon.ico') return undefined;
  if (e.type === 'network_response' && status >= 400) return { type: e.type, at, message: `${text(data.url)} answered ${status}` };
  return undefined;
}

/**
 * The step whose run contains `ms`: the last one to start before it. Results are in start order and a
 * block starts before its steps, so inside a block this is the innermost step; events between steps go
 * to the one that ran last before them.
 */
function stepAt(steps: StepResult[], ms: number): StepResult | undefined {
  let best: StepResult | undefined;
  for (const step of steps) {
    if (!step.started_at) continue;
    if (Date.parse(step.started_at) > ms) break;
    best = step;
  }
  return best;
}

// `--webhook URL`: a failing scheduled run (and the first passing one after it) is POSTed as JSON. The body
// carries the outcome and the failures only: no target URL, API key or variables, which may be secret.
// `text` is a one-line summary, so chat webhooks that expect `{ "text": ... }` (Slack, Mattermost) show it.
import type { HistoryEntry } from './history-entry.js';

const TIMEOUT_MS = 10_000;

export interface WebhookPayload {
  event: 'run_failed' | 'run_recovered';
  text: string;
  run: Omit<HistoryEntry, 'failures' | 'pruned'>;
  failures: HistoryEntry['failures'];
}

export function webhookPayload(event: WebhookPayload['event'], entry: HistoryEntry): WebhookPayload {
  const { failures, pruned: _pruned, ...run } = entry;
  const s = entry.summary;
  const text =
    event === 'run_recovered'
      ? `bcs: scheduled run ${entry.id} passed again (${s.passed}/${s.total} passed)`
      : `bcs: scheduled run ${entry.id} ${entry.status}: ${failures.length ? failures.map((f) => f.scenario || f.kind).join(', ') : `exit code ${entry.exit_code}`}`;
  return { event, text, run, failures };
}

/** POSTs the payload; never throws (a broken receiver must not stop the schedule), says what went wrong instead. */
export async function postWebhook(url: string, payload: WebhookPayload): Promise<string | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'bcs-schedule' },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.ok ? undefined : `webhook answered ${res.status}`;
  } catch (err) {
    return `webhook failed: ${(err as Error).message}`;
  }
}

/** The URL as safe to print: without user:password and without its query (tokens often ride there). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.length > 1 ? '/…' : '/'}`;
  } catch {
    return '(invalid URL)';
  }
}

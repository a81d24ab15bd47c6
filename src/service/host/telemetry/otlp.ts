// Sends captured events to OpenTelemetry collectors as OTLP/HTTP JSON logs (POST <endpoint>/v1/logs).
// Destinations are named in the service's options, so a browser create can pick one by name without ever
// carrying an endpoint or its credentials. Batches go out every 500 ms (or at 200 events), one request at a
// time per destination; a failing collector is retried a few times, then the batch is dropped and the
// session's export state says why. Capture never waits for any of this.
import type { TelemetryEnvelope } from '../../../api/types.js';

export interface OtlpDestination {
  /** The collector's OTLP/HTTP base (`http://host:4318`) or its full logs URL (`.../v1/logs`). */
  endpoint: string;
  headers?: Record<string, string>;
}

export interface ExportStatus {
  state: 'idle' | 'ok' | 'failing';
  exported_events: number;
  last_error?: string;
}

interface Pending {
  sessionId: string;
  env: TelemetryEnvelope;
}

interface Logger {
  warn(obj: object, msg: string): void;
}

const FLUSH_EVERY_MS = 500;
const FLUSH_AT = 200;
const MAX_QUEUED = 10_000;
const ATTEMPTS = 3;
const REQUEST_TIMEOUT_MS = 10_000;

class DestinationQueue {
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly onResult: (sessionIds: Map<string, number>, error?: string) => void,
  ) {}

  add(item: Pending): void {
    if (this.queue.length >= MAX_QUEUED) this.queue.shift();
    this.queue.push(item);
    if (this.queue.length >= FLUSH_AT) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_EVERY_MS);
      this.timer.unref();
    }
  }

  /** Sends what is queued after whatever is already in flight; resolves when that send is done. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.queue.length) return this.sending;
    const batch = this.queue;
    this.queue = [];
    this.sending = this.sending.then(() => this.send(batch));
    return this.sending;
  }

  private async send(batch: Pending[]): Promise<void> {
    const counts = new Map<string, number>();
    for (const { sessionId } of batch) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
    const body = JSON.stringify(toOtlp(batch));
    let error = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...this.headers },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.ok) return this.onResult(counts);
        error = `the collector answered ${res.status}`;
        // 4xx other than throttling will not get better by retrying.
        if (res.status < 500 && res.status !== 429 && res.status !== 408) break;
      } catch (err) {
        error = (err as Error).message;
      }
      if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, 250 * 2 ** attempt).unref());
    }
    this.onResult(counts, error);
  }
}

export class OtlpExporter {
  private readonly queues = new Map<string, DestinationQueue>();
  private readonly status = new Map<string, ExportStatus>();

  constructor(
    private readonly destinations: Record<string, OtlpDestination>,
    private readonly log: Logger,
  ) {}

  has(name: string): boolean {
    return Object.hasOwn(this.destinations, name);
  }

  names(): string[] {
    return Object.keys(this.destinations);
  }

  add(sessionId: string, destination: string, env: TelemetryEnvelope): void {
    if (!this.status.has(sessionId)) this.status.set(sessionId, { state: 'idle', exported_events: 0 });
    this.queue(destination)?.add({ sessionId, env });
  }

  statusOf(sessionId: string): ExportStatus {
    return this.status.get(sessionId) ?? { state: 'idle', exported_events: 0 };
  }

  /** Sends everything still queued (service shutdown), waiting at most `timeoutMs`. */
  async close(timeoutMs = 3000): Promise<void> {
    const all = Promise.all([...this.queues.values()].map((q) => q.flush()));
    await Promise.race([all, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  private queue(name: string): DestinationQueue | undefined {
    let q = this.queues.get(name);
    const dest = this.destinations[name];
    if (!q && dest) {
      const url = /\/v1\/logs\/?$/.test(dest.endpoint) ? dest.endpoint : `${dest.endpoint.replace(/\/+$/, '')}/v1/logs`;
      q = new DestinationQueue(url, dest.headers ?? {}, (counts, error) => this.record(name, counts, error));
      this.queues.set(name, q);
    }
    return q;
  }

  private record(destination: string, counts: Map<string, number>, error?: string): void {
    if (error) this.log.warn({ destination, err: error }, 'OTLP export failed; the batch was dropped');
    for (const [sessionId, n] of counts) {
      const s = this.status.get(sessionId) ?? { state: 'idle', exported_events: 0 };
      if (error) {
        s.state = 'failing';
        s.last_error = error;
      } else {
        s.state = 'ok';
        s.exported_events += n;
        delete s.last_error;
      }
      this.status.set(sessionId, s);
    }
  }
}

type AnyValue = { stringValue: string } | { intValue: string } | { boolValue: boolean };
const str = (key: string, value: string) => ({ key, value: { stringValue: value } as AnyValue });

/** OTLP/JSON severity numbers: INFO 9, WARN 13, ERROR 17. */
function severity(type: string): [number, string] {
  if (type === 'console_error' || type === 'service_crashed' || type === 'system_oom_kill' || type.startsWith('monitor_')) return [17, 'ERROR'];
  if (type === 'network_loading_failed') return [13, 'WARN'];
  return [9, 'INFO'];
}

/** A one-line human summary, for the record's body; the whole event rides along as an attribute. */
function summary(env: TelemetryEnvelope): string {
  const d = (env.event.data ?? {}) as Record<string, unknown>;
  const text = d.text ?? d.error_text ?? d.operation_id ?? d.url;
  return typeof text === 'string' ? `${env.event.type}: ${text}` : env.event.type;
}

function toOtlp(batch: Pending[]): object {
  const bySession = new Map<string, TelemetryEnvelope[]>();
  for (const { sessionId, env } of batch) {
    const list = bySession.get(sessionId) ?? [];
    list.push(env);
    bySession.set(sessionId, list);
  }
  const observed = String(BigInt(Date.now()) * 1_000_000n);
  return {
    resourceLogs: [...bySession].map(([sessionId, events]) => ({
      resource: { attributes: [str('service.name', 'bcs-browser'), str('browser.session_id', sessionId)] },
      scopeLogs: [
        {
          scope: { name: 'bcs.telemetry', version: '1' },
          logRecords: events.map((env) => {
            const [severityNumber, severityText] = severity(env.event.type);
            const attributes = [
              str('event.name', env.event.type),
              str('telemetry.category', env.event.category),
              { key: 'telemetry.seq', value: { intValue: String(env.seq) } },
              str('telemetry.source.kind', env.event.source.kind),
              str('telemetry.event', JSON.stringify(env.event)),
            ];
            if (env.event.source.event) attributes.push(str('telemetry.source.event', env.event.source.event));
            return {
              timeUnixNano: String(BigInt(env.event.ts) * 1000n),
              observedTimeUnixNano: observed,
              severityNumber,
              severityText,
              eventName: env.event.type,
              body: { stringValue: summary(env) },
              attributes,
            };
          }),
        },
      ],
    })),
  };
}

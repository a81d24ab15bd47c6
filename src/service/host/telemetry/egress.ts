// A connection the egress policy refused, as a telemetry event. The hosted SDK types events as a closed
// union (BrowserTelemetryEvent, discriminated on `type`), so a type of our own would break a typed
// client's switch or validation. The event is therefore captured in the hosted shape, a failed request
// of the network category (`network_loading_failed`, our reason in its `error_text`, the refusal's parts
// in `source.metadata`, which the hosted shape allows as strings), and turned into our own
// `egress_refused` only for a reader who asks for our types (`bcs_types=true` on telemetry reads).
import type { TelemetryEnvelope } from '../../../api/types.js';
import type { EgressRefusal } from '../proxy/index.js';

/** `source.event` of a refusal: tells it apart from Chromium's own loading failures (`Network.loadingFailed`). */
export const EGRESS_SOURCE_EVENT = 'egress_refused';
/** Our own type for it, for readers who opted in. */
export const EGRESS_REFUSED_TYPE = 'egress_refused';

const reasonPrefix = (code: string) => `egress refused (${code}): `;

/** The hosted shape of a refusal: type, source and data for TelemetryHub.emit. */
export function egressRefusedEvent(r: EgressRefusal): {
  type: 'network_loading_failed';
  source: { kind: 'kernel_api'; event: string; metadata: Record<string, string> };
  data: Record<string, unknown>;
} {
  const authority = `${r.host.includes(':') ? `[${r.host}]` : r.host}:${r.port}`;
  return {
    type: 'network_loading_failed',
    source: { kind: 'kernel_api', event: EGRESS_SOURCE_EVENT, metadata: { method: r.method, host: r.host, port: String(r.port), code: r.code } },
    data: {
      // The proxy is asked for a destination, not a path: a tunnel (CONNECT) is what https takes.
      url: `${r.method === 'CONNECT' ? 'https' : 'http'}://${authority}`,
      error_text: `${reasonPrefix(r.code)}${r.message}`,
      canceled: false,
    },
  };
}

/** An envelope as a reader of our own types gets it: a refusal as `egress_refused`, anything else unchanged. */
export function withOurTypes(env: TelemetryEnvelope): TelemetryEnvelope {
  const { event } = env;
  const meta = event.source.metadata;
  if (event.type !== 'network_loading_failed' || event.source.event !== EGRESS_SOURCE_EVENT || event.source.kind !== 'kernel_api' || !meta) return env;
  const errorText = typeof event.data?.error_text === 'string' ? event.data.error_text : '';
  const prefix = reasonPrefix(meta.code ?? '');
  return {
    seq: env.seq,
    event: {
      type: EGRESS_REFUSED_TYPE,
      category: event.category,
      ts: event.ts,
      source: { kind: 'kernel_api', event: 'egress_proxy' },
      data: {
        method: meta.method,
        host: meta.host,
        port: Number(meta.port),
        code: meta.code,
        message: errorText.startsWith(prefix) ? errorText.slice(prefix.length) : errorText,
      },
    },
  };
}

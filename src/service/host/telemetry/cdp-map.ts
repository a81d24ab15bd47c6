// Pure mappings from CDP event parameters to telemetry event data, shaped as the hosted SDK types them
// (BrowserConsoleLogEvent.Data, BrowserNetworkRequestEvent.Data, ...). No I/O here, so it is easy to read
// against the SDK's types.

/** CDP Runtime.RemoteObject, the parts used here. */
export interface RemoteObject {
  type: string;
  subtype?: string;
  value?: unknown;
  unserializableValue?: string;
  description?: string;
  preview?: { properties?: { name: string; value?: string; type: string }[]; overflow?: boolean; subtype?: string };
}

export interface StackTrace {
  callFrames: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }[];
  description?: string;
  parent?: StackTrace;
}

/** A console argument as the console would print it, roughly. */
export function remoteToString(obj: RemoteObject): string {
  if (obj.unserializableValue !== undefined) return obj.unserializableValue;
  if ('value' in obj) {
    if (typeof obj.value === 'string') return obj.value;
    if (obj.value === undefined) return 'undefined';
    return JSON.stringify(obj.value) ?? String(obj.value);
  }
  if (obj.type === 'undefined') return 'undefined';
  const props = obj.preview?.properties;
  if (props && obj.type === 'object' && obj.subtype !== 'error') {
    const inner = props.map((p) => (obj.preview?.subtype === 'array' ? `${p.value}` : `${p.name}: ${p.value}`)).join(', ');
    const more = obj.preview?.overflow ? ', …' : '';
    return obj.preview?.subtype === 'array' ? `[${inner}${more}]` : `{${inner}${more}}`;
  }
  return obj.description ?? obj.type;
}

/** Runtime.consoleAPICalled: console_error for console.error, console_log for every other level. */
export function consoleData(p: { type: string; args: RemoteObject[]; stackTrace?: StackTrace }): { type: string; data: Record<string, unknown> } {
  const args = p.args.map(remoteToString);
  const data: Record<string, unknown> = { level: p.type, text: args[0] ?? '', args };
  if (p.stackTrace) data.stack_trace = p.stackTrace;
  return { type: p.type === 'error' ? 'console_error' : 'console_log', data };
}

/** Runtime.exceptionThrown: text reads as the console shows it, e.g. "Uncaught Error: boom". */
export function exceptionData(p: {
  exceptionDetails: { text: string; lineNumber: number; columnNumber: number; url?: string; stackTrace?: StackTrace; exception?: RemoteObject };
}): Record<string, unknown> {
  const d = p.exceptionDetails;
  const what = d.exception ? (d.exception.description ?? remoteToString(d.exception)).split('\n')[0] : '';
  const data: Record<string, unknown> = { text: what ? `${d.text} ${what}` : d.text, line: d.lineNumber, column: d.columnNumber };
  if (d.url) data.source_url = d.url;
  if (d.stackTrace) data.stack_trace = d.stackTrace;
  return data;
}

export interface RequestWillBeSent {
  requestId: string;
  loaderId?: string;
  documentURL?: string;
  request: { url: string; method: string; headers?: Record<string, unknown>; hasPostData?: boolean };
  type?: string;
  frameId?: string;
  initiator?: { type?: string };
  redirectResponse?: { url: string };
}

/** Request metadata only: post data (a body) is left out on purpose. */
export function requestData(p: RequestWillBeSent): Record<string, unknown> {
  const data: Record<string, unknown> = {
    request_id: p.requestId,
    url: p.request.url,
    method: p.request.method,
    headers: p.request.headers ?? {},
    resource_type: p.type,
    initiator_type: p.initiator?.type,
    document_url: p.documentURL,
    is_redirect: !!p.redirectResponse,
  };
  if (p.redirectResponse) data.redirect_url = p.redirectResponse.url;
  return data;
}

export interface ResponseReceived {
  requestId: string;
  type?: string;
  frameId?: string;
  response: { url: string; status: number; statusText?: string; mimeType?: string; headers?: Record<string, unknown> };
}

export function responseData(p: ResponseReceived, method: string | undefined): Record<string, unknown> {
  return {
    request_id: p.requestId,
    url: p.response.url,
    method,
    status: p.response.status,
    status_text: p.response.statusText,
    mime_type: p.response.mimeType,
    headers: p.response.headers ?? {},
    resource_type: p.type,
  };
}

export function failureData(
  p: { requestId: string; type?: string; errorText: string; canceled?: boolean },
  url: string | undefined,
): Record<string, unknown> {
  return { request_id: p.requestId, url, error_text: p.errorText, canceled: !!p.canceled, resource_type: p.type };
}

/** Events large beyond this have their long strings cut and say `truncated: true`. */
export const MAX_DATA_CHARS = 64 * 1024;
const CUT_STRING_AT = 1024;

/** Returns data that serialises within MAX_DATA_CHARS, and whether anything had to be cut. */
export function fitData(data: Record<string, unknown>): { data: Record<string, unknown>; truncated: boolean } {
  if (JSON.stringify(data).length <= MAX_DATA_CHARS) return { data, truncated: false };
  const cut = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return v.length > CUT_STRING_AT ? `${v.slice(0, CUT_STRING_AT)}…` : v;
    if (depth > 6 || v === null || typeof v !== 'object') return depth > 6 ? undefined : v;
    if (Array.isArray(v)) return v.slice(0, 50).map((x) => cut(x, depth + 1));
    return Object.fromEntries(Object.entries(v).slice(0, 100).map(([k, x]) => [k, cut(x, depth + 1)]));
  };
  let out = cut(data, 0) as Record<string, unknown>;
  if (JSON.stringify(out).length > MAX_DATA_CHARS) {
    // Still too large: keep the scalar fields that identify the event, drop the bulky ones.
    out = Object.fromEntries(Object.entries(out).filter(([, v]) => v === null || typeof v !== 'object'));
  }
  return { data: out, truncated: true };
}

/** The binding the injected listener reports through, and the isolated world it lives in (invisible to pages). */
export const INTERACTION_BINDING = '__bcsTelemetryInteraction';
export const INTERACTION_WORLD = '__bcs_telemetry__';

/**
 * Runs in an isolated world of every document: DOM events are shared across worlds, so capture-phase
 * listeners here see every trusted click and key (CDP input, X11 input or a real user alike) while page
 * scripts can neither see nor disturb them. Keys typed into password fields are reported as `*`.
 */
export const INTERACTION_SCRIPT = `(() => {
  if (globalThis.__bcsTelemetryInstalled) return;
  globalThis.__bcsTelemetryInstalled = true;
  const send = (o) => { try { globalThis.${INTERACTION_BINDING}(JSON.stringify(o)); } catch {} };
  const selector = (el) => {
    const parts = [];
    for (let n = el; n && n.nodeType === 1 && parts.length < 5; n = n.parentElement) {
      let s = n.tagName.toLowerCase();
      if (n.id) { parts.unshift(s + '#' + CSS.escape(n.id)); break; }
      const p = n.parentElement;
      if (p) { const same = [...p.children].filter((c) => c.tagName === n.tagName); if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(n) + 1) + ')'; }
      parts.unshift(s);
    }
    return parts.join(' > ');
  };
  addEventListener('click', (e) => {
    const t = e.target instanceof Element ? e.target : null;
    send({ kind: 'click', x: e.clientX, y: e.clientY, tag: t ? t.tagName : undefined, selector: t ? selector(t) : undefined,
      text: t ? (t.innerText || t.textContent || '').trim().slice(0, 200) : undefined });
  }, { capture: true, passive: true });
  addEventListener('keydown', (e) => {
    const t = document.activeElement;
    const secret = t && t.tagName === 'INPUT' && t.type === 'password';
    send({ kind: 'key', key: secret ? '*' : e.key, tag: t ? t.tagName : undefined, selector: t && t !== document.body ? selector(t) : undefined });
  }, { capture: true, passive: true });
  let from = null, timer = 0;
  addEventListener('scroll', (e) => {
    const t = e.target instanceof Element ? e.target : document.scrollingElement;
    const pos = () => t === document.scrollingElement || !t ? [scrollX, scrollY] : [t.scrollLeft, t.scrollTop];
    if (!from) from = pos();
    clearTimeout(timer);
    timer = setTimeout(() => {
      const [x, y] = pos();
      send({ kind: 'scroll', from_x: from[0], from_y: from[1], to_x: x, to_y: y, target_selector: t && t !== document.scrollingElement ? selector(t) : undefined });
      from = null;
    }, 300);
  }, { capture: true, passive: true });
})();`;

/** A binding payload from INTERACTION_SCRIPT as an interaction event, or undefined if malformed. */
export function interactionEvent(payload: string): { type: string; data: Record<string, unknown> } | undefined {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { kind, ...data } = o;
  if (kind === 'click') return { type: 'interaction_click', data };
  if (kind === 'key') return { type: 'interaction_key', data };
  if (kind === 'scroll') return { type: 'interaction_scroll_settled', data };
  return undefined;
}

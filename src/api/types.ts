// Wire types of the Browser Cloud API, as the hosted service and our embedded service speak them.
// Field names are snake_case on purpose: these are the JSON bodies, not an idiomatic TS model.

/** The Error body every non-2xx response carries. */
export interface ErrorBody {
  code: string;
  message: string;
  details?: ErrorDetail[];
  inner_error?: ErrorDetail;
}

export interface ErrorDetail {
  code?: string;
  message?: string;
  /** Our extension: the request field the detail is about, e.g. `body.timeout_seconds`. */
  field?: string;
}

export interface Viewport {
  width: number;
  height: number;
  refresh_rate?: number;
}

export interface BrowserCreateParams {
  headless?: boolean;
  stealth?: boolean;
  timeout_seconds?: number;
  viewport?: Viewport;
  start_url?: string;
  name?: string;
  tags?: Record<string, string>;
  kiosk_mode?: boolean;
  telemetry?: BrowserTelemetryRequest | null;
}

export interface BrowserUpdateParams {
  /** `""` clears the name. */
  name?: string;
  /** Replaces the whole tag set; `{}` clears it. */
  tags?: Record<string, string>;
  /** Omitted, null or `{}` leaves capture as it is; see BrowserTelemetryRequest. */
  telemetry?: Omit<BrowserTelemetryRequest, 'export'> | null;
}

export type BrowserStatusFilter = 'active' | 'deleted' | 'all';

export interface BrowserListParams {
  offset?: number;
  limit?: number;
  status?: BrowserStatusFilter;
  query?: string;
  tags?: Record<string, string>;
}

/** Why a session ended. Our extension to the wire shape: the hosted API only sets `deleted_at`. */
export type BrowserEndReason = 'deleted' | 'timeout' | 'browser_exited' | 'service_shutdown' | 'service_restart';

export interface BrowserSession {
  session_id: string;
  cdp_ws_url: string;
  created_at: string;
  headless: boolean;
  stealth: boolean;
  timeout_seconds: number;
  kiosk_mode?: boolean;
  name?: string;
  tags?: Record<string, string>;
  viewport?: Viewport;
  start_url?: string;
  deleted_at?: string;
  end_reason?: BrowserEndReason;
  /** Human-readable detail of the end, e.g. `chromium exited with signal SIGKILL`. */
  end_detail?: string;
  usage?: { uptime_ms: number };
  /** Our extension: whether the browser and its processes run in the host's sandbox (bubblewrap). */
  sandboxed?: boolean;
  /** The browser pool the session belongs to (acquired from it, or idle in it). */
  pool?: BrowserPoolRef;
  /** The session's telemetry capture: every configurable category with its flag; absent when never configured. */
  telemetry?: BrowserTelemetryConfig;
}

/** Telemetry categories (§9 of the hosted reference); `monitor` follows the CDP ones and is not configurable. */
export type TelemetryCategory =
  | 'console' | 'network' | 'page' | 'interaction' | 'control' | 'connection' | 'system' | 'captcha' | 'screenshot' | 'monitor';

export type TelemetryCategoryFlags = Partial<Record<Exclude<TelemetryCategory, 'monitor'>, { enabled?: boolean }>>;

/** The `telemetry` field of browser create and update bodies. */
export interface BrowserTelemetryRequest {
  enabled?: boolean;
  browser?: TelemetryCategoryFlags;
  /** Create only: send captured events to a destination the service was configured with. */
  export?: { otlp: { destination: string } };
}

export interface BrowserTelemetryConfig {
  browser?: TelemetryCategoryFlags;
  /** The export and how it is going. */
  export?: { otlp: { destination: string; state: 'idle' | 'ok' | 'failing'; exported_events: number; last_error?: string } };
}

/** One captured event, as `telemetry/events` and `telemetry/stream` carry it. */
export interface TelemetryEvent {
  type: string;
  category: TelemetryCategory;
  /** Unix microseconds. */
  ts: number;
  source: { kind: 'cdp' | 'kernel_api' | 'extension' | 'local_process'; event?: string; metadata?: Record<string, string> };
  data?: Record<string, unknown>;
  truncated?: boolean;
}

export interface TelemetryEnvelope {
  /** Per session, from 1, without gaps unless events were dropped. */
  seq: number;
  event: TelemetryEvent;
}

export interface BrowserPoolRef {
  id: string;
  name?: string;
}

/** The launch settings every browser of a pool shares (create body minus `name`, as stored and echoed). */
export interface BrowserPoolConfig {
  size: number;
  name?: string;
  headless: boolean;
  stealth: boolean;
  kiosk_mode: boolean;
  viewport?: Viewport;
  start_url?: string;
  /** Inactivity timeout of an acquired browser, in seconds. */
  timeout_seconds: number;
  /** Percent of `size` per minute; see the README for how the embedded service applies it. */
  fill_rate_per_minute: number;
  telemetry?: BrowserTelemetryRequest;
}

export interface BrowserPool {
  id: string;
  name?: string;
  acquired_count: number;
  available_count: number;
  browser_pool_config: BrowserPoolConfig;
  created_at: string;
  extension_ids: string[];
  profile_id?: string;
}

export interface BrowserPoolAcquireParams {
  acquire_timeout_seconds?: number;
  name?: string;
  tags?: Record<string, string>;
  start_url?: string;
  /** Capture for this lease; back to the default when it is released. */
  telemetry?: BrowserTelemetryRequest | null;
}

export interface BrowserPoolReleaseParams {
  session_id: string;
  reuse?: boolean;
}

/** `GET/PATCH /org/limits`. null means no limit. */
export interface OrgLimits {
  max_concurrent_sessions: number | null;
  /** Deprecated by the unified limit: accepted, stored and echoed, never enforced. */
  max_pooled_sessions: number | null;
}

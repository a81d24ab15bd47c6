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
}

export interface BrowserUpdateParams {
  /** `""` clears the name. */
  name?: string;
  /** Replaces the whole tag set; `{}` clears it. */
  tags?: Record<string, string>;
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
}

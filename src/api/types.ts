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
  /** Exactly one of mode, id or name. Cannot be combined with `proxy_id`. */
  proxy?: BrowserProxyConfig;
  /** Deprecated in favour of `proxy`: a proxy id in the same project. */
  proxy_id?: string;
  /** Deprecated: stealth sessions here have no default proxy, so this changes nothing (accepted for compatibility). */
  disable_default_proxy?: boolean;
  /** Exactly one of id or name: the session starts from a copy of the profile's state. */
  profile?: BrowserProfileSelector;
  /** Uploaded extensions to load, each by id or name. */
  extensions?: BrowserExtensionSelector[];
}

/** Which profile a browser loads; with `save_changes` its state is written back when the session ends. */
export interface BrowserProfileSelector {
  id?: string;
  name?: string;
  save_changes?: boolean;
}

export interface BrowserExtensionSelector {
  id?: string;
  name?: string;
}

/** `/profiles`: a browser state (cookies, storage, preferences) that sessions start from. */
export interface Profile {
  id: string;
  name?: string | null;
  created_at: string;
  /** When the name or the stored state last changed. */
  updated_at?: string;
  /** When a browser last loaded it. */
  last_used_at?: string;
}

export interface ProfileCreateParams {
  name?: string;
}

export interface ProfileUpdateParams {
  name: string;
}

export interface ProfileListParams {
  offset?: number;
  limit?: number;
  /** Exact name, case-insensitive. */
  name?: string;
  /** Substring of the name or id, case-insensitive. */
  query?: string;
}

/** `/extensions`: an uploaded zip of an unpacked Chromium extension. */
export interface Extension {
  id: string;
  name: string | null;
  created_at: string;
  /** Size of the uploaded archive. */
  size_bytes: number;
  /** Lowercase hex SHA-256 of the exact uploaded bytes. */
  checksum: string | null;
  last_used_at: string | null;
}

export type ExtensionListParams = ProfileListParams;

export interface BrowserUpdateParams {
  /** `""` clears the name. */
  name?: string;
  /** Replaces the whole tag set; `{}` clears it. */
  tags?: Record<string, string>;
  /** Omitted, null or `{}` leaves capture as it is; see BrowserTelemetryRequest. */
  telemetry?: Omit<BrowserTelemetryRequest, 'export'> | null;
  /** Switches the session's egress; cannot be combined with `proxy_id` or `disable_default_proxy`. */
  proxy?: BrowserProxyConfig;
  /** Deprecated: `""` removes the proxy. */
  proxy_id?: string | null;
  /** Deprecated: no default proxy exists here; accepted and changes nothing. */
  disable_default_proxy?: boolean;
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
  /** The session's resolved egress: a selected proxy by id (and name), or a mode. */
  proxy?: BrowserProxy;
  /** Deprecated in favour of `proxy.id`. */
  proxy_id?: string;
  /** The profile the session started from. */
  profile?: Profile;
  /** Whether the session writes its state back to `profile` when it ends; present when a profile is loaded. */
  profile_save_changes?: boolean;
}

/** `direct` never uses a proxy; `default` is the browser default, which here is direct egress too. */
export type BrowserProxyMode = 'direct' | 'default';

/** The `proxy` field of browser create and update bodies: exactly one of the three. */
export interface BrowserProxyConfig {
  mode?: BrowserProxyMode;
  id?: string;
  name?: string;
}

export interface BrowserProxy {
  id?: string;
  name?: string;
  mode?: BrowserProxyMode;
}

export type ProxyType = 'datacenter' | 'isp' | 'residential' | 'mobile' | 'custom';
export type ProxyProtocol = 'http' | 'https';

/** `config` of a proxy as responses show it: per type, and for custom proxies `has_password`, never the password. */
export interface ProxyConfig {
  country?: string;
  state?: string;
  city?: string;
  zip?: string;
  asn?: string;
  os?: 'windows' | 'macos' | 'android';
  host?: string;
  port?: number;
  username?: string;
  has_password?: boolean;
}

export interface ProxyCreateParams {
  type: ProxyType;
  name?: string;
  protocol?: ProxyProtocol;
  bypass_hosts?: string[];
  /** As ProxyConfig, with `password` instead of `has_password` for custom proxies. */
  config?: Omit<ProxyConfig, 'has_password'> & { password?: string };
}

export interface Proxy {
  id: string;
  type: ProxyType;
  name?: string;
  protocol: ProxyProtocol;
  bypass_hosts: string[];
  config: ProxyConfig;
  /** For custom proxies, the address of the proxy server the last check reached (the exit IP is not discoverable offline). */
  ip_address?: string;
  /** Absent until the first check of a custom proxy; hosted-only types are always `unavailable` here. */
  status?: 'available' | 'unavailable';
  /** Our extension: why the status is what it is (the last check's error, or why a type cannot route here). */
  status_detail?: string;
  last_checked?: string;
}

export interface ProxyListParams {
  offset?: number;
  limit?: number;
  /** Exact name, case-insensitive. */
  name?: string;
  /** Substring of the name, host or IP address; an id matches exactly. */
  query?: string;
}

export interface ProxyCheckParams {
  /** An http(s) URL to reach through the proxy instead of the default target; the stored status is then left alone. */
  url?: string;
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
  /** A custom proxy in the pool's project that every browser of the pool routes through. */
  proxy_id?: string;
  /** As sent; the resolved ids are the pool's `extension_ids`. */
  extensions?: BrowserExtensionSelector[];
  /** As sent, without `save_changes` (pool browsers load profiles read-only); resolved as the pool's `profile_id`. */
  profile?: Omit<BrowserProfileSelector, 'save_changes'>;
  /** Replace idle browsers when the profile's state is updated; defaults to true when a profile is set. */
  refresh_on_profile_update?: boolean;
}

/** `POST /browser_pools`: `size` is required, everything else defaults as in the config above. */
export type BrowserPoolCreateParams = Partial<Omit<BrowserPoolConfig, 'size'>> & { size: number };

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

/** Who created an API key. There are no user accounts here: the creator is the API key that asked. */
export interface ApiKeyCreator {
  id: string;
  email: string;
  name: string | null;
}

/** `/org/api_keys`: an org-wide (`project_id` null) or project-scoped key, only ever shown masked. */
export interface ApiKey {
  id: string;
  name: string;
  masked_key: string;
  created_at: string;
  created_by: ApiKeyCreator;
  /** null: the key never expires. */
  expires_at: string | null;
  deleted_at: string | null;
  project_id: string | null;
  project_name: string | null;
}

/** The answer to a create or rotate: the only time the plaintext `key` is shown. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface ApiKeyCreateParams {
  name: string;
  /** 1-3650; null or omitted: never expires. */
  days_to_expire?: number | null;
  project_id?: string | null;
}

export interface ApiKeyRotateParams {
  /** The new key's lifetime; omitted: the rotated key's lifetime, null: never expires. */
  days_to_expire?: number | null;
  /** How long the rotated key keeps working; omitted or null: the service's grace period (7 days). */
  expire_in_days?: number | null;
}

export type ProjectStatus = 'active' | 'archived';

/** `/org/projects`. */
export interface Project {
  id: string;
  name: string;
  status: ProjectStatus;
  created_at: string;
  updated_at: string;
}

/** `GET/PATCH /org/projects/{id}/limits`: overrides of the org limit; null means no project-level cap. */
export interface ProjectLimits {
  max_concurrent_sessions: number | null;
  /** Stored and echoed: there are no app invocations here. */
  max_concurrent_invocations: number | null;
  /** Deprecated by the unified limit: always null; setting it is a 400. */
  max_pooled_sessions: null;
}

/** One mutating request, as `GET /audit-logs` lists it. */
export interface AuditLogEntry {
  timestamp: string;
  method: string;
  /** The path and query string, with token-like query values redacted. */
  path: string;
  /** The matched route pattern (`/browsers/{id_or_name}`), '' when no route matched. */
  route: string;
  status: number;
  duration_ms: number;
  client_ip: string;
  domain: string;
  user_agent: string;
  /** The principal: the authenticating API key's id ('' when the request was not authenticated). */
  user_id: string;
  email: string;
  /** `api_key`, or `none` for requests that did not authenticate. */
  auth_strategy: string;
  /** Our extensions: the key, the project the request acted in, and the request id (`x-request-id`). */
  api_key_id: string | null;
  project_id: string | null;
  request_id: string;
}

/** `GET /auth/context`: who the request authenticated as and which project it acts in. */
export interface AuthContextInfo {
  authentication: { credential_id: string | null; method: 'api_key' | 'jwt'; source: 'api_key' | 'oauth' | 'dashboard' };
  authorization: { credential_scope: { project_id: string | null }; effective_scope: { project_id: string | null } };
  organization: { id: string };
  principal: { id: string; type: 'api_key' | 'user' };
}

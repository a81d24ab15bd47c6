// Wire types of the Browser Cloud API, as the hosted service and our embedded service speak them. Each is
// derived from its JSON Schema in ./schemas/ (FromSchema), the one source the service validates and documents
// with. Field names are snake_case on purpose: these are the JSON bodies, not an idiomatic TS model.

export type {
  BrowserEndReason,
  BrowserPoolRef,
  BrowserProxyMode,
  BrowserProxy,
  BrowserProxyConfig,
  BrowserTelemetryConfig,
  BrowserSession,
  BrowserCreateParams,
  BrowserUpdateParams,
  BrowserListParams,
  BrowserStatusFilter,
} from './schemas/browsers.js';
export type { BrowserKeepReason, BrowserKeepParams, BrowserKept } from './schemas/browser-keep.js';
export type { CdpTarget, CdpVersion } from './schemas/cdp.js';
export type { CodegenStartParams, CodegenRecording } from './schemas/codegen.js';
export type { OkResult, ErrorDetail, ErrorBody, Viewport } from './schemas/common.js';
export type {
  ClickParams,
  MoveParams,
  PressKeyParams,
  TypeParams,
  ScrollParams,
  DragParams,
  Region,
  MousePosition,
  ClipboardText,
} from './schemas/computer.js';
export type { Extension, BrowserExtensionSelector, ExtensionListParams } from './schemas/extensions.js';
export type { FileInfo, FsEventType, FsEvent, FsWatch } from './schemas/fs.js';
export type { LogFrame } from './schemas/logs.js';
export type {
  OrgLimits,
  ApiKeyCreator,
  ApiKey,
  CreatedApiKey,
  ProjectStatus,
  Project,
  ProjectLimits,
  AuditLogEntry,
  AuthContextInfo,
  ApiKeyCreateParams,
  ApiKeyRotateParams,
} from './schemas/org.js';
export type { PlaywrightExecuteResult } from './schemas/playwright.js';
export type { LiveMessage, LiveServerMessage, LiveViewMode } from './schemas/live-view.js';
export type {
  BrowserPoolConfig,
  BrowserPool,
  BrowserPoolCreateParams,
  BrowserPoolUpdateParams,
  BrowserPoolAcquireParams,
  BrowserPoolReleaseParams,
} from './schemas/pools.js';
export type {
  ProcessExecParams,
  ProcessSpawnParams,
  ExecResult,
  SpawnResult,
  ProcessStatus,
  StdinResult,
  ProcessOutputFrame,
} from './schemas/process.js';
export type {
  Profile,
  BrowserProfileSelector,
  ProfileCreateParams,
  ProfileUpdateParams,
  ProfileListParams,
} from './schemas/profiles.js';
export type {
  ProxyType,
  ProxyProtocol,
  ProxyConfig,
  Proxy,
  ProxyCreateParams,
  ProxyUpdateParams,
  ProxyCheckParams,
  ProxyListParams,
} from './schemas/proxies.js';
export type { MarkerInput, Marker, ReplayView } from './schemas/replays.js';
export type {
  TelemetryCategory,
  TelemetryCategoryFlags,
  BrowserTelemetryRequest,
  TelemetryEvent,
  TelemetryEnvelope,
} from './schemas/telemetry.js';
export type {
  Credential,
  CredentialCreateParams,
  CredentialUpdateParams,
  CredentialListParams,
  TotpCode as CredentialTotpCode,
  CredentialProvider,
  CredentialProviderCreateParams,
  CredentialProviderUpdateParams,
  CredentialProviderListParams,
  CredentialProviderItem,
  CredentialProviderTestResult,
} from './schemas/credentials.js';
export type {
  ManagedAuth,
  ConnectionCreateParams,
  ConnectionUpdateParams,
  ConnectionListParams,
  LoginParams,
  LoginResponse,
  SubmitParams,
  TimelineEvent,
} from './schemas/auth-connections.js';
export type {
  Run,
  RunArtifact,
  RunCreateParams,
  RunFinishParams,
  RunListParams,
  RunResult,
  RunResultParams,
  RunStep,
  RunTrigger,
  RunWithResults,
  ArtifactKind,
  ArtifactUploadParams,
  ScenarioHistory,
  ScenarioHistoryParams,
} from './schemas/runs.js';
export type {
  AlertPolicy,
  CheckRunPoint,
  MonitorAlertRecord,
  MonitorCheckState,
  MonitorSchedule,
  MonitorStatus,
  RetryPolicy,
} from './schemas/monitors.js';

// Managed auth: a connection keeps a profile logged in to a domain. Login flows run in a real browser with
// the connection's profile, fill the site's forms from a credential, and ask for what they cannot fill.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, offsetPageQuery, ours, type Input } from './common.js';
import { telemetryUpdateSchema } from './telemetry.js';

const nullableArray = (items: object) => ({ type: ['array', 'null'], items }) as const;
const host = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$',
} as const;

export const flowStatus = { type: 'string', enum: ['IN_PROGRESS', 'SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED'] } as const;
export const flowStep = { type: 'string', enum: ['DISCOVERING', 'AWAITING_INPUT', 'AWAITING_EXTERNAL_ACTION', 'SUBMITTING', 'COMPLETED'] } as const;
export const flowType = { type: 'string', enum: ['LOGIN', 'REAUTH'] } as const;
const mfaType = { type: 'string', enum: ['sms', 'call', 'email', 'totp', 'push', 'password', 'switch'] } as const;

export const canReauthReason = {
  type: 'string',
  enum: [
    'external_credential',
    'cua_has_credential',
    'has_credential',
    'viable_plans_found',
    'no_requirements_recorded',
    'requirements_satisfiable',
    'no_prior_successful_login',
    'no_credential',
    'no_viable_plans',
    'viable_plans_require_external_action',
    'requires_external_action',
    'requires_totp_without_secret',
    'requires_sms_code',
    'requires_email_code',
  ],
} as const;

export const authChoice = {
  type: 'object',
  required: ['id', 'label', 'type'],
  properties: {
    id: { type: 'string' },
    label: { type: 'string' },
    type: { type: 'string', enum: ['mfa_method', 'sso_provider', 'sign_in_method', 'auth_method', 'identifier_method', 'account', 'other'] },
    description: { type: ['string', 'null'] },
    observed_selector: { type: ['string', 'null'] },
  },
} as const;

export const discoveredField = {
  type: 'object',
  required: ['label', 'name', 'selector', 'type'],
  properties: {
    label: { type: 'string' },
    name: { type: 'string' },
    selector: { type: 'string' },
    type: { type: 'string', enum: ['text', 'email', 'password', 'tel', 'number', 'url', 'code', 'totp'] },
    hint: { type: 'string' },
    linked_mfa_type: { type: ['string', 'null'], enum: [...mfaType.enum, null] },
    placeholder: { type: 'string' },
    required: { type: 'boolean' },
  },
} as const;

export const authField = {
  type: 'object',
  required: ['id', 'ref', 'type'],
  properties: {
    id: { type: 'string' },
    ref: { type: 'string' },
    type: { type: 'string', enum: ['identifier', 'password', 'code', 'totp_code', 'totp_secret', 'text'] },
    label: { type: 'string' },
    observed_selector: { type: ['string', 'null'] },
    required: { type: 'boolean' },
  },
} as const;

export const mfaOption = {
  type: 'object',
  required: ['label', 'type'],
  properties: { label: { type: 'string' }, type: mfaType, description: { type: ['string', 'null'] }, target: { type: ['string', 'null'] } },
} as const;

export const ssoButton = {
  type: 'object',
  required: ['label', 'provider', 'selector'],
  properties: { label: { type: 'string' }, provider: { type: 'string' }, selector: { type: 'string' } },
} as const;

export const signInOption = {
  type: 'object',
  required: ['id', 'label'],
  properties: { id: { type: 'string' }, label: { type: 'string' }, description: { type: ['string', 'null'] } },
} as const;

/** What a connection logs in with: a credential of the project by name, or one a provider holds. */
export const connectionCredential = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    provider: { type: 'string', minLength: 1, maxLength: 255 },
    path: { type: 'string', minLength: 1, maxLength: 1024 },
    auto: { type: 'boolean' },
  },
} as const;

const proxyRef = {
  type: 'object',
  additionalProperties: false,
  properties: { id: { type: 'string', minLength: 1, maxLength: 255 }, name: { type: 'string', minLength: 1, maxLength: 255 } },
} as const;

/** The seed's browser settings of a connection, applied to every browser it launches. */
export const connectionBrowser = {
  type: 'object',
  additionalProperties: false,
  properties: {
    stealth: { type: 'boolean', description: 'false skips stealth' },
    proxy: proxyRef,
    telemetry: telemetryUpdateSchema,
  },
} as const;

const connectionState = {
  flow_status: { anyOf: [flowStatus, { type: 'null' }] },
  flow_step: { anyOf: [flowStep, { type: 'null' }] },
  flow_type: { anyOf: [flowType, { type: 'null' }] },
  flow_expires_at: { type: ['string', 'null'], format: 'date-time' },
  discovered_fields: nullableArray(discoveredField),
  fields: nullableArray(authField),
  choices: nullableArray(authChoice),
  mfa_options: nullableArray(mfaOption),
  pending_sso_buttons: nullableArray(ssoButton),
  sign_in_options: nullableArray(signInOption),
  external_action_message: { type: ['string', 'null'] },
  website_error: { type: ['string', 'null'] },
  error_code: { type: ['string', 'null'] },
  error_message: { type: ['string', 'null'] },
  hosted_url: { type: ['string', 'null'] },
  live_view_url: { type: ['string', 'null'] },
  post_login_url: { type: 'string' },
} as const;

export const managedAuth = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'domain', 'profile_name', 'record_session', 'save_credentials', 'status'],
  properties: {
    id: { type: 'string' },
    domain: { type: 'string' },
    profile_name: { type: 'string' },
    status: { type: 'string', enum: ['AUTHENTICATED', 'NEEDS_AUTH'] },
    record_session: { type: 'boolean' },
    save_credentials: { type: 'boolean' },
    allowed_domains: { type: 'array', items: { type: 'string' } },
    auto_reauth: { type: 'boolean' },
    browser_session_id: { type: ['string', 'null'] },
    browser_telemetry: { type: ['object', 'null'] },
    browser: connectionBrowser,
    can_reauth: { type: 'boolean' },
    can_reauth_reason: canReauthReason,
    credential: connectionCredential,
    health_checks: { type: 'boolean' },
    health_check_interval: { type: ['integer', 'null'] },
    last_auth_at: dateTime,
    last_auth_check_at: dateTime,
    login_url: { type: 'string' },
    proxy_id: { type: 'string' },
    sso_provider: { type: ['string', 'null'] },
    created_at: ours({ ...dateTime, description: 'Our extension' }),
    site_config_id: ours({ type: 'string', description: 'Our extension: the site config for the domain, whose settings its browsers take where the connection sets none' }),
    ...connectionState,
  },
} as const;

/** Health checks run at most this often (the hosted Enterprise minimum) and at least daily. */
export const HEALTH_CHECK_MIN_SECONDS = 300;
export const HEALTH_CHECK_MAX_SECONDS = 86_400;

const settings = {
  allowed_domains: { type: 'array', maxItems: 50, items: host },
  auto_reauth: { type: 'boolean' },
  browser_telemetry: telemetryUpdateSchema,
  browser: connectionBrowser,
  credential: connectionCredential,
  health_check_interval: { type: 'integer', minimum: HEALTH_CHECK_MIN_SECONDS, maximum: HEALTH_CHECK_MAX_SECONDS },
  health_checks: { type: 'boolean' },
  login_url: { type: 'string', maxLength: 8192, pattern: '^https?://' },
  proxy: proxyRef,
  proxy_id: { type: 'string', minLength: 1, maxLength: 255, description: 'Deprecated: use proxy.id' },
  record_session: { type: 'boolean' },
  save_credentials: { type: 'boolean' },
} as const;

export const connectionCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['domain', 'profile_name'],
  properties: {
    domain: host,
    profile_name: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,255}$' },
    ...settings,
  },
} as const;

export const connectionUpdateParams = { type: 'object', additionalProperties: false, properties: settings } as const;

export const connectionListQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...offsetPageQuery,
    domain: { type: 'string', maxLength: 253 },
    profile_name: { type: 'string', maxLength: 255 },
    query: { type: 'string', maxLength: 255 },
  },
} as const;

export const loginParams = {
  type: 'object',
  additionalProperties: false,
  properties: { proxy: proxyRef, record_session: { type: 'boolean' }, browser_telemetry: telemetryUpdateSchema },
} as const;

export const loginResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'flow_expires_at', 'flow_type', 'hosted_url'],
  properties: {
    id: { type: 'string' },
    flow_expires_at: dateTime,
    flow_type: flowType,
    hosted_url: { type: 'string' },
    handoff_code: { type: 'string' },
    live_view_url: { type: 'string' },
  },
} as const;

const submittedValues = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { type: 'string', minLength: 1, maxLength: 1024 },
  additionalProperties: { type: 'string', maxLength: 65_536 },
} as const;

export const submitParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    field_values: { ...submittedValues, description: 'Keyed by a field\'s id, name or selector, or by its type (identifier, password, code)' },
    fields: { ...submittedValues, description: 'Same as field_values' },
    mfa_option_id: { type: 'string', maxLength: 255 },
    selected_choice_id: { type: 'string', maxLength: 255 },
    sign_in_option_id: { type: 'string', maxLength: 255 },
    sso_provider: { type: 'string', maxLength: 64 },
    sso_button_selector: { type: 'string', maxLength: 1024 },
  },
} as const;

export const submitResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['accepted'],
  properties: { accepted: { type: 'boolean' } },
} as const;

export const timelineEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'status', 'timestamp', 'type'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string', enum: ['login', 'reauth', 'health_check'] },
    status: { type: 'string', enum: ['IN_PROGRESS', 'SUCCESS', 'EXPIRED', 'CANCELED', 'FAILED', 'AUTHENTICATED', 'NEEDS_AUTH'] },
    timestamp: dateTime,
    updated_at: dateTime,
    step: {
      type: 'string',
      enum: ['INITIALIZED', 'DISCOVERING', 'AWAITING_INPUT', 'AWAITING_EXTERNAL_ACTION', 'AWAITING_HUMAN_INTERVENTION', 'SUBMITTING', 'COMPLETED', 'EXPIRED'],
    },
    browser_session_id: { type: 'string' },
    error_code: { type: 'string' },
    error_message: { type: 'string' },
    previous_status: { type: 'string', enum: ['AUTHENTICATED', 'NEEDS_AUTH'] },
    replay_id: { type: 'string' },
    telemetry_captured: { type: 'boolean' },
    website_error: { type: 'string' },
  },
} as const;

export const timelineQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { ...offsetPageQuery, type: { type: 'string', enum: ['login', 'reauth', 'health_check'] } },
} as const;

/** A frame of `GET /auth/connections/{id}/events`. */
export const managedAuthStateEvent = {
  type: 'object',
  required: ['event', 'flow_status', 'flow_step', 'timestamp'],
  properties: {
    event: { type: 'string', const: 'managed_auth_state' },
    timestamp: dateTime,
    ...connectionState,
    flow_status: flowStatus,
    flow_step: flowStep,
  },
} as const;

export type ManagedAuth = FromSchema<typeof managedAuth>;
export type ConnectionCreateParams = FromSchema<typeof connectionCreateParams>;
export type ConnectionUpdateParams = FromSchema<typeof connectionUpdateParams>;
export type ConnectionListParams = Input<typeof connectionListQuery>;
export type ConnectionCredential = FromSchema<typeof connectionCredential>;
export type ConnectionBrowser = FromSchema<typeof connectionBrowser>;
export type LoginParams = FromSchema<typeof loginParams>;
export type LoginResponse = FromSchema<typeof loginResponse>;
export type SubmitParams = FromSchema<typeof submitParams>;
export type TimelineEvent = FromSchema<typeof timelineEvent>;
export type AuthChoice = FromSchema<typeof authChoice>;
export type DiscoveredField = FromSchema<typeof discoveredField>;
export type AuthField = FromSchema<typeof authField>;
export type MfaOption = FromSchema<typeof mfaOption>;
export type SsoButton = FromSchema<typeof ssoButton>;
export type FlowStatus = FromSchema<typeof flowStatus>;
export type FlowStep = FromSchema<typeof flowStep>;
export type FlowType = FromSchema<typeof flowType>;

// Following an auth connection's login flow (`GET /auth/connections/{id}/events`) to its end, for the
// `auth` setup step and `bcs auth login`. The stream takes no `since`: one that breaks, or ends before a
// final state (the service restarted), is followed again from the flow's start, which only repeats states
// already seen; the connection itself says whether the flow ended meanwhile.
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiConnectionError, ApiTimeoutError } from '../../src/api/index.js';
import type { AuthField, DiscoveredField, FlowStatus, FlowStep } from '../../src/api/schemas/auth-connections.js';
import type { ManagedAuth } from '../../src/api/types.js';

/** A `managed_auth_state` frame, or the connection's own state fields when the stream could not say. */
export interface FlowState {
  event?: string;
  flow_status?: FlowStatus | null;
  flow_step?: FlowStep | null;
  flow_type?: string | null;
  hosted_url?: string | null;
  flow_expires_at?: string | null;
  fields?: AuthField[] | null;
  discovered_fields?: DiscoveredField[] | null;
  choices?: { id: string; label: string }[] | null;
  mfa_options?: { label: string; type: string }[] | null;
  pending_sso_buttons?: { label: string; provider: string }[] | null;
  external_action_message?: string | null;
  error_code?: string | null;
  error_message?: string | null;
  website_error?: string | null;
}

/** What following needs of a client: a read of the connection and its event stream. */
export interface FlowApi {
  connection(id: string): Promise<ManagedAuth>;
  events(path: string): AsyncIterableIterator<FlowState>;
  signal?: AbortSignal;
}

const TERMINAL = new Set<string>(['SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED']);
const WAITING = new Set<string>(['AWAITING_INPUT', 'AWAITING_EXTERNAL_ACTION']);
/** Broken or short streams in a row (no frame in between) before giving up. */
const MAX_RESUMES = 5;

export const isFinal = (state: FlowState): boolean => TERMINAL.has(state.flow_status ?? '');

/** Whether the flow waits for a person: input to fill in, or an action elsewhere (a push to approve). */
export const isWaiting = (state: FlowState): boolean => state.flow_status === 'IN_PROGRESS' && WAITING.has(state.flow_step ?? '');

/** Hands each state of the flow before its end to `onState`, and answers the final one. */
export async function followFlow(id: string, api: FlowApi, onState: (state: FlowState) => void): Promise<FlowState> {
  let misses = 0;
  for (;;) {
    try {
      for await (const frame of api.events(`${connectionPath(id)}/events`)) {
        if (frame.event !== 'managed_auth_state') continue;
        misses = 0;
        // Leaving the loop closes the stream.
        if (isFinal(frame)) return frame;
        onState(frame);
      }
    } catch (err) {
      if (api.signal?.aborted || !(err instanceof ApiConnectionError || err instanceof ApiTimeoutError) || ++misses >= MAX_RESUMES) throw err;
      await sleep(250 * misses, undefined, { signal: api.signal });
      continue;
    }
    const now = await api.connection(id);
    if (isFinal(now as FlowState)) return now as FlowState;
    if (++misses >= MAX_RESUMES) throw new Error(`the event stream of auth connection ${id} keeps ending before its login flow does`);
    await sleep(250 * misses, undefined, { signal: api.signal });
  }
}

/** `Email (identifier), Password (password)`, a choice, a verification method or a sign-in provider. */
export function asksFor(state: FlowState): string {
  const parts: string[] = [];
  if (state.fields?.length) parts.push(...state.fields.map((f) => (f.label ? `${f.label} (${f.type})` : f.type)));
  else if (state.discovered_fields?.length) parts.push(...state.discovered_fields.map((f) => `${f.label || f.name} (${f.type})`));
  if (state.choices?.length) parts.push(`a choice of ${quoted(state.choices.map((c) => c.label))}`);
  if (state.mfa_options?.length) parts.push(`a verification method: ${quoted(state.mfa_options.map((m) => m.label))}`);
  if (state.pending_sso_buttons?.length) parts.push(`a sign-in provider: ${quoted(state.pending_sso_buttons.map((b) => b.provider))}`);
  return parts.join(', ');
}

/** `invalid_credentials: the site refused the login: ...`, with the site's words when the message lacks them. */
export function flowError(state: FlowState): string {
  const code = state.error_code ? `${state.error_code}: ` : '';
  const reason = state.error_message ?? state.website_error ?? 'no reason given';
  const site = state.website_error && !reason.includes(state.website_error) ? ` (the site said: ${state.website_error})` : '';
  return `${code}${reason}${site}`;
}

/** `2026-05-01T10:20:30.123Z` as `2026-05-01 10:20:30Z`. */
export function instant(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function connectionPath(id: string): string {
  return `/auth/connections/${encodeURIComponent(id)}`;
}

function quoted(labels: string[]): string {
  return labels.map((l) => `'${l}'`).join(', ');
}

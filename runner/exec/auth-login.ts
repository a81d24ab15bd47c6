// The `auth` setup step: an auth connection made sure of before a browser starts from its profile. An
// AUTHENTICATED connection with no flow running is used as it is; otherwise a login flow is started (or the
// one in progress joined) and followed to its end. Only SUCCESS lets the scenario go on: any other end is
// the service's or the site's doing, not the scenario's, so it fails as infrastructure with the flow's own
// error. A flow that waits for a person says so, with the page where one can finish it.
import { ApiError, type CloudClient } from '../../src/api/index.js';
import type { LoginResponse, ManagedAuth } from '../../src/api/types.js';
import type { AuthConnectionRef } from '../../src/scenario/plan.js';
import { StepFailure } from './failures.js';
import { asksFor, connectionPath, flowError, followFlow, instant, isWaiting, type FlowApi, type FlowState } from './login-flow.js';

export interface AuthLoginDeps {
  client: CloudClient;
  /** The step's backstop and the run's interrupt. */
  signal: AbortSignal;
  /** The step's budget: the login must end within it. */
  timeoutMs: number;
  /** What the step waits for now; `detail` is said once in full. */
  progress(status: string, detail?: string): void;
  requestIds: string[];
}

/** What the step reports as its output. */
export interface AuthOutcome {
  connection_id: string;
  domain: string;
  profile_name: string;
  status: ManagedAuth['status'];
  /** `not needed` when it was logged in already; else how the flow it followed ended. */
  login: 'not needed' | 'SUCCESS';
  flow_type?: string;
}

/** What the step has learnt of the flow, for its messages. */
interface FlowWatch {
  what: string;
  /** Whether the flow waits for a person now. */
  waiting: boolean;
  /** Where a person completes it. */
  url?: string;
  /** When the service ends the flow if it has not ended by then. */
  expiresAt?: string;
}

type Call = <T>(method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string>) => Promise<T>;

export async function ensureLoggedIn(ref: AuthConnectionRef, given: AuthLoginDeps): Promise<{ connection: ManagedAuth; output: AuthOutcome }> {
  // Our own deadline, ahead of the step's backstop, so running out says what the flow was doing.
  const deadline = AbortSignal.timeout(given.timeoutMs);
  const deps = { ...given, signal: AbortSignal.any([given.signal, deadline]) };
  const flow: FlowWatch = { what: 'id' in ref ? `auth connection ${ref.id}` : `the auth connection for ${ref.domain} (profile ${ref.profile_name})`, waiting: false };
  try {
    return await logIn(ref, deps, flow);
  } catch (err) {
    if (deadline.aborted) throw new StepFailure('timeout', `${flow.what}: the login did not end within ${given.timeoutMs} ms${personNote(flow, 'is')}`);
    if (given.signal.aborted) throw new StepFailure('interrupted', `interrupted while logging in ${flow.what}`);
    throw err;
  }
}

async function logIn(ref: AuthConnectionRef, deps: AuthLoginDeps, flow: FlowWatch): Promise<{ connection: ManagedAuth; output: AuthOutcome }> {
  const call = caller(deps);
  let connection = await find(ref, call);
  flow.what = `auth connection ${connection.id} (${connection.domain}, profile ${connection.profile_name})`;
  if (connection.status === 'AUTHENTICATED' && connection.flow_status !== 'IN_PROGRESS') return outcome('not needed', connection);

  flow.url = connection.hosted_url ?? undefined;
  flow.expiresAt = connection.flow_expires_at ?? undefined;
  if (connection.flow_status === 'IN_PROGRESS') deps.progress(`joining the ${connection.flow_type ?? 'login'} flow in progress`);
  else {
    const started = await call<LoginResponse>('POST', `${connectionPath(connection.id)}/login`, {});
    flow.url = started.hosted_url;
    flow.expiresAt = started.flow_expires_at;
    deps.progress(`logging in (${started.flow_type} flow started)`);
  }

  const api: FlowApi = {
    connection: (id) => call<ManagedAuth>('GET', connectionPath(id)),
    events: (path) => deps.client.events<FlowState>(path, { signal: deps.signal }),
    signal: deps.signal,
  };
  const final = await followFlow(connection.id, api, (state) => seen(state, flow, deps));
  if (final.flow_status !== 'SUCCESS') {
    throw new StepFailure('infrastructure', `${flow.what}: the login flow ended ${final.flow_status ?? 'without a status'}: ${flowError(final)}${personNote(flow, 'was')}`);
  }
  connection = await call<ManagedAuth>('GET', connectionPath(connection.id));
  return outcome('SUCCESS', connection, final.flow_type ?? undefined);
}

/** Says when the flow starts waiting for a person (where, and for what) and when it stops. */
function seen(state: FlowState, flow: FlowWatch, deps: AuthLoginDeps): void {
  if (state.hosted_url) flow.url = state.hosted_url;
  if (state.flow_expires_at) flow.expiresAt = state.flow_expires_at;
  const waiting = isWaiting(state);
  if (waiting && !flow.waiting) {
    const until = flow.expiresAt ? ` (the flow expires at ${instant(flow.expiresAt)})` : '';
    const lines = [`${flow.what}: the login waits for a person${flow.url ? '; complete it at:' : ' (the service gave no page to complete it at)'}`];
    if (flow.url) lines.push(`  ${flow.url}`);
    const asks = asksFor(state);
    if (asks) lines.push(`it asks for ${asks}`);
    if (state.external_action_message) lines.push(state.external_action_message);
    deps.progress(`waiting for a person to complete the login${until}`, lines.join('\n'));
  } else if (!waiting && flow.waiting) deps.progress('input received; logging in');
  flow.waiting = waiting;
}

function personNote(flow: FlowWatch, tense: 'is' | 'was'): string {
  return flow.waiting ? `; it ${tense} waiting for a person to complete it${flow.url ? ` at ${flow.url}` : ''}` : '';
}

function outcome(login: AuthOutcome['login'], c: ManagedAuth, flowType?: string): { connection: ManagedAuth; output: AuthOutcome } {
  return {
    connection: c,
    output: { connection_id: c.id, domain: c.domain, profile_name: c.profile_name, status: c.status, login, ...(flowType ? { flow_type: flowType } : {}) },
  };
}

/** API calls that record their request ids among the step's. */
function caller(deps: AuthLoginDeps): Call {
  return async <T>(method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string>) => {
    try {
      const res = await deps.client.request<T>(method, path, { body, query, signal: deps.signal });
      if (res.requestId) deps.requestIds.push(res.requestId);
      return res.data;
    } catch (err) {
      if (err instanceof ApiError && err.requestId) deps.requestIds.push(err.requestId);
      throw err;
    }
  };
}

async function find(ref: AuthConnectionRef, call: Call): Promise<ManagedAuth> {
  if ('id' in ref) {
    try {
      return await call<ManagedAuth>('GET', connectionPath(ref.id));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        throw new StepFailure('infrastructure', `auth connection '${ref.id}' not found in this project (\`bcs auth list\` shows them): ${err.serverMessage}`);
      }
      throw err;
    }
  }
  const listed = await call<ManagedAuth[]>('GET', '/auth/connections', undefined, { domain: ref.domain, profile_name: ref.profile_name, limit: '100' });
  const found = listed.find((c) => c.domain === ref.domain && c.profile_name === ref.profile_name);
  if (!found) {
    throw new StepFailure(
      'infrastructure',
      `no auth connection for domain ${ref.domain} with profile ${ref.profile_name} in this project; create one with \`bcs auth create --domain ${ref.domain} --profile ${ref.profile_name}\``,
    );
  }
  return found;
}

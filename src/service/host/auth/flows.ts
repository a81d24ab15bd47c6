// Login flows of auth connections: one at a time per connection, each in its own browser with the
// connection's profile (saved when the flow ends), its state stored on the connection, streamed as
// `managed_auth_state` events and kept in the connection's timeline. A flow waiting for input expires at
// `flow_expires_at`; deleting the connection cancels it.
import { randomBytes } from 'node:crypto';
import type { LoginResponse, SubmitParams, TimelineEvent } from '../../../api/schemas/auth-connections.js';
import { newId } from '../../ids.js';
import type { ConnectionRow, FlowState } from '../../store/auth-connections-repo.js';
import type { CredentialProviders, CredentialStore } from '../credentials/index.js';
import { DomainError, conflict, notFound } from '../errors.js';
import type { EventLog, StoredEvent } from '../event-log.js';
import type { AuthConnections } from './connections.js';
import { isAllowedHost } from './domains.js';
import { runLoginFlow, type LoginSecrets, type PendingInput } from './flow.js';
import type { FlowBrowser, LaunchFlowBrowser } from './flow-browser.js';

export interface LoginFlowsDeps {
  connections: AuthConnections;
  credentials: CredentialStore;
  providers: CredentialProviders;
  launch: LaunchFlowBrowser;
  events: EventLog;
  now: () => Date;
  /** How long a flow may take, waiting for input included (default 10 minutes). */
  flowTtlMs?: number;
  /** The page where a person completes a flow, for a connection and its flow's code. */
  hostedUrl: (connectionId: string, code: string) => string;
  log: { warn(obj: object, msg: string): void };
}

/** What a login request sets for its own flow, over the connection's settings. */
export interface FlowOverrides {
  /** A proxy id, or null for none. */
  proxy_id?: string | null;
  record_session?: boolean;
  browser_telemetry?: ConnectionRow['settings']['browser_telemetry'];
}

interface LiveFlow {
  flowId: string;
  /** The flow's state as last written, for answering a start while it runs. */
  flow: FlowState;
  browser?: FlowBrowser;
  waiting?: { resolve(body: SubmitParams): void; reject(err: Error): void };
  expiry?: NodeJS.Timeout;
  done: Promise<void>;
}

const DEFAULT_TTL_MS = 10 * 60_000;
const TERMINAL = new Set(['SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED']);

/** Thrown into a flow that was cancelled or expired: its state is already written. */
class FlowStopped extends Error {}

export class LoginFlows {
  private readonly live = new Map<string, LiveFlow>();
  /** Per connection, the last flow write queued: writes land in the order they were asked for. */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: LoginFlowsDeps) {}

  /**
   * Starts a flow (with a login's own proxy, recording and telemetry), or answers the one in progress. The
   * flow is registered before anything is awaited, so concurrent starts of one connection run one flow.
   */
  async start(row: ConnectionRow, type: 'LOGIN' | 'REAUTH', overrides: FlowOverrides = {}): Promise<LoginResponse> {
    const running = this.live.get(row.id);
    if (running && !TERMINAL.has(running.flow.status)) return this.response(running.flow, row.id);
    const now = this.deps.now();
    const flow: FlowState = {
      id: newId(),
      type,
      status: 'IN_PROGRESS',
      step: 'DISCOVERING',
      expires_at: new Date(now.getTime() + (this.deps.flowTtlMs ?? DEFAULT_TTL_MS)).toISOString(),
      started_at: now.toISOString(),
      handoff_code: randomBytes(18).toString('base64url'),
      browser_session_id: null,
      replay_id: null,
      timeline_id: newId(),
      discovered_fields: null,
      fields: null,
      choices: null,
      mfa_options: null,
      pending_sso_buttons: null,
      website_error: null,
      error_code: null,
      error_message: null,
    };
    const live: LiveFlow = { flowId: flow.id, flow, done: Promise.resolve() };
    this.live.set(row.id, live);
    try {
      // In the connection's queue as a whole, so a stop asked for meanwhile is recorded and published after it.
      await this.queue(row.id, async () => {
        if (!(await this.deps.connections.modify(row.id, (current) => ({ ...current, flow })))) throw notFound('auth connection', row.id);
        await this.timeline(row.id, flow, true);
        this.publish(row.id, flow, null);
      });
    } catch (err) {
      if (this.live.get(row.id) === live) this.live.delete(row.id);
      throw err;
    }
    const expire = () => this.stop(row.id, 'EXPIRED', 'flow_expired', 'the login flow expired before it finished');
    live.expiry = setTimeout(() => void expire().catch((err: unknown) => this.warn(row.id, err, 'a login flow did not expire cleanly')), Date.parse(flow.expires_at) - now.getTime());
    live.expiry.unref();
    live.done = this.run(row.id, live, overrides).finally(() => {
      clearTimeout(live.expiry);
      if (this.live.get(row.id) === live) this.live.delete(row.id);
    });
    return this.response(flow, row.id);
  }

  /** Hands what a person submitted to the flow waiting for it. */
  async submit(row: ConnectionRow, body: SubmitParams): Promise<{ accepted: boolean }> {
    const live = this.live.get(row.id);
    if (!live || row.flow?.status !== 'IN_PROGRESS') throw conflict(`auth connection '${row.id}' has no login flow in progress; start one with POST /auth/connections/${row.id}/login`);
    if (!live.waiting) throw conflict(`the login flow is ${row.flow.step}, not AWAITING_INPUT; submit once it asks for input`);
    const waiting = live.waiting;
    live.waiting = undefined;
    // Queued before the flow wakes, so its next step lands after: whoever reads the state next (the hosted
    // page) sees it working.
    const written = this.update(row.id, live.flowId, { step: 'SUBMITTING', ...noPending() });
    waiting.resolve(body);
    await written;
    return { accepted: true };
  }

  /** Ends a flow in progress as cancelled or expired (deleting its connection, expiry, shutdown). */
  async stop(connectionId: string, status: 'CANCELED' | 'EXPIRED', code: string, message: string): Promise<void> {
    const live = this.live.get(connectionId);
    if (!live) return;
    await this.update(connectionId, live.flowId, { status, step: 'COMPLETED', error_code: code, error_message: message, ...noPending() });
    live.waiting?.reject(new FlowStopped(message));
    live.waiting = undefined;
    await live.browser?.close().catch(() => undefined);
    await live.done;
  }

  async close(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.stop(id, 'CANCELED', 'service_stopping', 'the service is shutting down')));
  }

  /** The flow's state as an event of the connection's stream; `postLoginUrl` is the connection's, shown on success. */
  stateEvent(connectionId: string, flow: FlowState, postLoginUrl: string | null): StoredEvent {
    return {
      event: 'managed_auth_state',
      timestamp: this.deps.now().toISOString(),
      flow_status: flow.status,
      flow_step: flow.step,
      flow_type: flow.type,
      ...(flow.status === 'IN_PROGRESS' ? { hosted_url: this.deps.hostedUrl(connectionId, flow.handoff_code) } : {}),
      ...Object.fromEntries(
        (['discovered_fields', 'fields', 'choices', 'mfa_options', 'pending_sso_buttons', 'website_error', 'error_code', 'error_message'] as const)
          .filter((k) => flow[k] !== null)
          .map((k) => [k, flow[k]]),
      ),
      ...(flow.status === 'SUCCESS' ? { post_login_url: postLoginUrl ?? undefined } : {}),
    };
  }

  isTerminal(flow: Pick<FlowState, 'status'>): boolean {
    return TERMINAL.has(flow.status);
  }

  /** Flows a previous run of the service left in progress end as failed: their browser is gone. */
  async recover(): Promise<void> {
    for (const row of await this.deps.connections.all()) {
      if (row.flow && !TERMINAL.has(row.flow.status)) {
        const message = 'the service restarted while this login flow was in progress';
        await this.update(row.id, row.flow.id, { status: 'FAILED', step: 'COMPLETED', error_code: 'service_restarted', error_message: message, ...noPending() });
      }
    }
  }

  private async run(connectionId: string, live: LiveFlow, overrides: FlowOverrides): Promise<void> {
    const current = async () => {
      const row = await this.deps.connections.get(connectionId);
      if (!row || row.flow?.id !== live.flowId || TERMINAL.has(row.flow.status)) throw new FlowStopped('the flow was stopped');
      return row;
    };
    // A change of the running flow; the flow was stopped (or replaced) when it no longer applies.
    const advance = async (change: Partial<FlowState>, rowChange?: (current: ConnectionRow) => Partial<ConnectionRow>) => {
      if (!(await this.update(connectionId, live.flowId, change, rowChange))) throw new FlowStopped('the flow was stopped');
    };
    try {
      const row = await current();
      const secrets = await this.secretsOf(row);
      const telemetry = overrides.browser_telemetry !== undefined ? overrides.browser_telemetry : row.settings.browser_telemetry;
      live.browser = await this.deps.launch(await current(), {
        proxyId: overrides.proxy_id,
        record: overrides.record_session ?? row.settings.record_session,
        telemetry: telemetry ?? (row.settings.browser?.telemetry as typeof telemetry) ?? null,
      });
      await advance({ browser_session_id: live.browser.sessionId, replay_id: live.browser.replayId ?? null });
      const loginUrl = row.settings.login_url ?? `https://${row.domain}/`;
      const outcome = await runLoginFlow(live.browser.page, loginUrl, secrets, {
        now: this.deps.now,
        allowed: (url) => isAllowedHost(url, row.domain, row.settings.allowed_domains, loginUrl),
        step: (step, pending?: PendingInput) => advance({ step, ...(pending ?? noPending()) }),
        input: () => new Promise<SubmitParams>((resolve, reject) => (live.waiting = { resolve, reject })),
      });
      // The profile is saved when the browser ends: only then is the connection authenticated.
      await live.browser.close();
      const done = await current();
      if (outcome.ok) {
        const credential = await this.saveSubmitted(done, outcome.submitted);
        const at = this.deps.now().toISOString();
        await advance({ status: 'SUCCESS', step: 'COMPLETED', ...noPending() }, (now) => ({
          ...(credential ? { settings: { ...now.settings, credential: { name: credential } } } : {}),
          status: 'AUTHENTICATED',
          last_auth_at: at,
          last_auth_check_at: at,
          post_login_url: outcome.postLoginUrl,
        }));
      } else {
        await advance({ status: 'FAILED', step: 'COMPLETED', error_code: outcome.code, error_message: outcome.message, website_error: outcome.websiteError ?? null, ...noPending() });
      }
    } catch (err) {
      if (err instanceof FlowStopped) return;
      const known = err instanceof DomainError;
      const failed = await this.update(connectionId, live.flowId, {
        status: 'FAILED',
        step: 'COMPLETED',
        error_code: known ? err.code : 'flow_error',
        error_message: known ? err.message : `the login flow failed: ${(err as Error).message.split('\n')[0]}`,
        ...noPending(),
      }).catch((writeErr: unknown) => (this.warn(connectionId, writeErr, 'a failed login flow could not be recorded'), false));
      // Only a failure of the flow still running is news; a stopped or replaced one already says why it ended.
      if (failed && !known) this.warn(connectionId, err, 'a login flow failed');
    } finally {
      await live.browser?.close().catch(() => undefined);
    }
  }

  /** The values to log in with: the connection's credential, one a provider holds, or none (a person types them). */
  private async secretsOf(row: ConnectionRow): Promise<LoginSecrets> {
    const ref = row.settings.credential;
    if (!ref) return { values: {}, totp: null, sso_provider: null };
    if (ref.name !== undefined) return this.deps.credentials.open(await this.deps.credentials.find(row.project_id, ref.name));
    const resolved = await this.deps.providers.resolve(ref.path !== undefined ? { provider: ref.provider!, path: ref.path } : { provider: ref.provider!, auto: true }, row.domain);
    return { values: resolved.login.values, totp: resolved.login.totp, sso_provider: null };
  }

  /**
   * With save_credentials, what a person typed is kept in the connection's credential (made when it has
   * none): answers the name of a credential made for it.
   */
  private async saveSubmitted(row: ConnectionRow, submitted: Record<string, string>): Promise<string | undefined> {
    const values = Object.fromEntries(Object.entries(submitted).filter(([key]) => key !== 'code' && key !== 'totp_code'));
    if (!row.settings.save_credentials || !Object.keys(values).length || row.settings.credential?.provider) return undefined;
    const { credentials } = this.deps;
    if (row.settings.credential?.name) {
      await credentials.update(await credentials.find(row.project_id, row.settings.credential.name), { values }, 'submit');
      return undefined;
    }
    // The first free name: a name taken meanwhile (the unique index says so) moves on to the next.
    const base = `${row.domain}-${row.profile_name}`;
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}-${n}`;
      if (await this.exists(row, name)) continue;
      try {
        await credentials.create(row.project_id, { domain: row.domain, name, values }, 'submit');
        return name;
      } catch (err) {
        if (!(err instanceof DomainError && err.kind === 'conflict')) throw err;
      }
    }
  }

  private async exists(row: ConnectionRow, name: string): Promise<boolean> {
    try {
      await this.deps.credentials.find(row.project_id, name);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Changes flow `flowId` of a connection (and with `rowChange` the connection) while it is the connection's
   * unfinished flow, checked and written in one transaction; false when it is not (stopped, replaced, the
   * connection deleted). Writes of one connection are queued in the order asked for.
   */
  private update(connectionId: string, flowId: string, change: Partial<FlowState>, rowChange?: (current: ConnectionRow) => Partial<ConnectionRow>): Promise<boolean> {
    return this.queue(connectionId, async () => {
      const saved = await this.deps.connections.modify(connectionId, (current) =>
        current.flow?.id === flowId && !TERMINAL.has(current.flow.status)
          ? { ...current, ...rowChange?.(current), flow: { ...current.flow, ...change } }
          : undefined,
      );
      if (!saved?.flow) return false;
      const live = this.live.get(connectionId);
      if (live?.flowId === flowId) live.flow = saved.flow;
      await this.timeline(connectionId, saved.flow, false);
      this.publish(connectionId, saved.flow, saved.post_login_url);
      return true;
    });
  }

  /** Runs `write` after the connection's writes queued before it (whether they failed or not). */
  private queue<T>(connectionId: string, write: () => Promise<T>): Promise<T> {
    const before = this.writes.get(connectionId) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(write);
    const tail = mine.catch(() => undefined);
    this.writes.set(connectionId, tail);
    void tail.then(() => {
      if (this.writes.get(connectionId) === tail) this.writes.delete(connectionId);
    });
    return mine;
  }

  private publish(connectionId: string, flow: FlowState, postLoginUrl: string | null): void {
    const { event, timestamp: _t, ...fields } = this.stateEvent(connectionId, flow, postLoginUrl);
    this.deps.events.publish(flow.id, { event, ...fields });
  }

  private warn(connectionId: string, err: unknown, msg: string): void {
    this.deps.log.warn({ connection_id: connectionId, err: (err as Error).message }, msg);
  }

  private async timeline(connectionId: string, flow: FlowState, first: boolean): Promise<void> {
    const at = this.deps.now().toISOString();
    const event: TimelineEvent = {
      id: flow.timeline_id,
      type: flow.type === 'REAUTH' ? 'reauth' : 'login',
      status: flow.status,
      step: flow.status === 'EXPIRED' ? 'EXPIRED' : flow.step,
      timestamp: flow.started_at,
      updated_at: at,
      ...(flow.browser_session_id ? { browser_session_id: flow.browser_session_id } : {}),
      ...(flow.replay_id ? { replay_id: flow.replay_id } : {}),
      ...(flow.error_code ? { error_code: flow.error_code } : {}),
      ...(flow.error_message ? { error_message: flow.error_message } : {}),
      ...(flow.website_error ? { website_error: flow.website_error } : {}),
    };
    if (first) await this.deps.connections.addTimeline(connectionId, event);
    else await this.deps.connections.setTimeline(event);
  }

  private response(flow: FlowState, connectionId: string): LoginResponse {
    return { id: flow.id, flow_type: flow.type, flow_expires_at: flow.expires_at, hosted_url: this.deps.hostedUrl(connectionId, flow.handoff_code), handoff_code: flow.handoff_code };
  }
}

function noPending(): Pick<FlowState, 'discovered_fields' | 'fields' | 'choices' | 'mfa_options' | 'pending_sso_buttons'> {
  return { discovered_fields: null, fields: null, choices: null, mfa_options: null, pending_sso_buttons: null };
}

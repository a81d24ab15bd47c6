// Health checks of auth connections: every `health_check_interval` seconds an authenticated connection's
// profile opens the page its last login reached, in a browser of its own with the profile read-only. A
// login page there means the site logged it out: the connection needs auth and, with `auto_reauth` and a
// credential that can log in without a person, a re-login starts at once.
import type { TimelineEvent } from '../../../api/schemas/auth-connections.js';
import { newId } from '../../ids.js';
import type { ConnectionRow } from '../../store/auth-connections-repo.js';
import type { AuthConnections } from './connections.js';
import { probeSignedIn } from './flow.js';
import type { LaunchFlowBrowser } from './flow-browser.js';
import type { LoginFlows } from './flows.js';

export interface HealthChecksDeps {
  connections: AuthConnections;
  flows: LoginFlows;
  launch: LaunchFlowBrowser;
  now: () => Date;
  /** How often due checks are looked for (default 30 s). */
  tickMs?: number;
  log: { warn(obj: object, msg: string): void };
}

export class HealthChecks {
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly deps: HealthChecksDeps) {}

  start(): void {
    this.timer = setInterval(() => void this.tick().catch((err: unknown) => this.deps.log.warn({ err: (err as Error).message }, 'auth connection health checks could not be looked for')), this.deps.tickMs ?? 30_000);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all(this.running.values());
  }

  /** Starts the checks that are due; one at a time per connection, none while a login flow runs. */
  async tick(): Promise<void> {
    const now = this.deps.now().getTime();
    for (const row of await this.deps.connections.all()) {
      if (this.closed || this.running.has(row.id) || !this.due(row, now)) continue;
      const run = this.check(row)
        .catch((err: unknown) => this.deps.log.warn({ connection_id: row.id, err: (err as Error).message }, 'an auth connection health check could not be recorded'))
        .finally(() => this.running.delete(row.id));
      this.running.set(row.id, run);
    }
  }

  private due(row: ConnectionRow, now: number): boolean {
    if (!row.settings.health_checks || row.status !== 'AUTHENTICATED' || (row.flow && !this.deps.flows.isTerminal(row.flow))) return false;
    const last = Date.parse(row.last_auth_check_at ?? row.last_auth_at ?? row.created_at);
    return now - last >= row.settings.health_check_interval * 1000;
  }

  private async check(row: ConnectionRow): Promise<void> {
    const started = this.deps.now().toISOString();
    const loginUrl = row.settings.login_url ?? `https://${row.domain}/`;
    let outcome: { signedIn: boolean } | { error: string };
    let sessionId: string | undefined;
    try {
      const browser = await this.deps.launch(row, { saveProfile: false });
      sessionId = browser.sessionId;
      try {
        outcome = await probeSignedIn(browser.page, row.post_login_url ?? loginUrl, loginUrl);
      } finally {
        await browser.close();
      }
    } catch (err) {
      outcome = { error: (err as Error).message.split('\n')[0]! };
    }
    // The connection may have been deleted, or logged in again, while the check ran: the outcome applies to
    // the connection as it is stored when written.
    const at = this.deps.now().toISOString();
    let previous: ConnectionRow['status'] | undefined;
    const next = await this.deps.connections.modify(row.id, (current) => {
      previous = current.status;
      const status = 'signedIn' in outcome ? (outcome.signedIn ? 'AUTHENTICATED' : 'NEEDS_AUTH') : current.status;
      return { ...current, status, last_auth_check_at: at };
    });
    if (!next || !previous) return;
    const event: TimelineEvent = {
      id: newId(),
      type: 'health_check',
      status: next.status,
      previous_status: previous,
      timestamp: started,
      updated_at: at,
      ...(sessionId ? { browser_session_id: sessionId } : {}),
      ...('error' in outcome ? { error_code: 'health_check_failed', error_message: outcome.error } : {}),
    };
    await this.deps.connections.addTimeline(row.id, event);
    if ('error' in outcome) this.deps.log.warn({ connection_id: row.id, err: outcome.error }, 'an auth connection health check failed');
    if (next.status === 'NEEDS_AUTH' && next.settings.auto_reauth && this.deps.connections.reauthability(next).can_reauth && !this.closed) {
      await this.deps.flows.start(next, 'REAUTH');
    }
  }
}

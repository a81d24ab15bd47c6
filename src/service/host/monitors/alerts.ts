// Raising an alert: the alert built from the check and the run that raised it, sent to each of the check's
// channels (their secrets read now, not at deploy), and recorded with how each delivery went. A muted alert
// (a maintenance window) is recorded and not sent. Deliveries run in parallel; one failing channel never
// holds back another, and a delivery never throws.
import { newId } from '../../ids.js';
import type { MonitorsRepo } from '../../store/monitors-repo.js';
import type { Alert, AlertKind, Channel } from './alert.js';
import type { RaisedAlert } from './scheduler.js';
import { resolveChannel, type SecretReader } from './secrets.js';

export interface Delivery {
  ok: boolean;
  attempts: number;
  error?: string;
}

export interface AlertSenderDeps {
  repo: MonitorsRepo;
  secrets: SecretReader;
  deliver: (channel: Channel, alert: Alert) => Promise<Delivery>;
  /** Links start with it (the public URL, else the service's address). */
  origin: () => string;
  now: () => Date;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

const HEADLINE: Record<AlertKind, string> = { failing: 'FAILING', recovered: 'RECOVERED', reminder: 'STILL FAILING', degraded: 'DEGRADED' };

export class AlertSender {
  constructor(private readonly deps: AlertSenderDeps) {}

  async raise(r: RaisedAlert): Promise<void> {
    const alert = this.build(r);
    const names = r.check.spec.channels ?? [];
    const deliveries: ({ channel: string } & Delivery)[] = [];
    if (!r.muted) {
      const channels = r.suite.settings.channels ?? {};
      deliveries.push(
        ...(await Promise.all(
          names.map(async (name) => {
            const spec = channels[name];
            if (!spec) return { channel: name, ok: false, attempts: 0, error: `channel '${name}' is not in the suite's channels` };
            try {
              const channel = await resolveChannel(this.deps.secrets, r.check.project_id, name, spec, r.suite.settings.secrets ?? {});
              return { channel: name, ...(await this.deps.deliver(channel, alert)) };
            } catch (err) {
              return { channel: name, ok: false, attempts: 0, error: (err as Error).message };
            }
          }),
        )),
      );
      for (const d of deliveries.filter((x) => !x.ok)) this.deps.log.warn({ check: r.check.name, channel: d.channel, error: d.error }, 'an alert could not be delivered');
    }
    await this.deps.repo.insertAlert({
      id: alert.id,
      check_id: r.check.id,
      project_id: r.check.project_id,
      kind: r.kind,
      at: alert.at,
      muted: r.muted,
      run_id: r.attempt.run_id,
      deliveries,
    });
  }

  build(r: RaisedAlert): Alert {
    const origin = this.deps.origin();
    const { check, suite, attempt } = r;
    const h = check.health;
    const why = r.kind === 'recovered' ? 'passes again' : r.kind === 'degraded' ? `passed slowly (${attempt.duration_ms} ms)` : (attempt.message ?? attempt.status);
    const streak = h.consecutive_failures > 1 ? ` (${h.consecutive_failures} runs in a row)` : '';
    return {
      id: newId(),
      kind: r.kind,
      check: { id: check.id, name: check.name, suite: suite.name, file: check.spec.file },
      status: h.status === 'pending' ? 'passing' : h.status,
      consecutive_failures: h.consecutive_failures,
      failing_since: h.failing_since,
      ...(attempt.run_id
        ? { run: { id: attempt.run_id, url: `${origin}/runs/${attempt.run_id}`, console_url: `${origin}/#/runs/${attempt.run_id}`, duration_ms: attempt.duration_ms } }
        : {}),
      ...(r.kind !== 'recovered' && attempt.failure ? { failure: attempt.failure } : {}),
      // The browser kept at this run's failing step, or at an earlier one of the spell while it lives.
      ...(r.kind !== 'recovered' && (attempt.kept_session ?? h.kept) ? { kept_session: attempt.kept_session ?? h.kept } : {}),
      summary: `[${HEADLINE[r.kind]}] ${suite.name} / ${check.name}: ${why}${r.kind === 'failing' || r.kind === 'reminder' ? streak : ''}`.slice(0, 1000),
      at: this.deps.now().toISOString(),
    };
  }
}

// A check's settings as its deploy gave them, in words: schedule, timeout, retries, alert policy, channels,
// keep-on-failure, tags and file. The API answers each with its default filled in, so what is shown is what runs.
import type { AlertPolicy, MonitorCheckState, MonitorSchedule, RetryPolicy } from '../../api/types.js';
import { hrefWith } from '../router.js';
import { duration } from '../ui.js';

/** Whole seconds as a manifest would give them: `45 s`, `5 min`, `2 h`, `1 d`. */
export function seconds(s: number): string {
  if (s > 0 && s % 86_400 === 0) return `${s / 86_400} d`;
  if (s > 0 && s % 3600 === 0) return `${s / 3600} h`;
  if (s > 0 && s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}

export function scheduleText(s: MonitorSchedule): string {
  if ('every_seconds' in s) return `every ${seconds(s.every_seconds)}`;
  return `cron ${s.cron}${s.timezone ? ` (${s.timezone})` : ' (UTC)'}`;
}

/** The scheduler's delays when the manifest names none (src/service/host/monitors/timing.ts): shown, since they are what runs. */
const DEFAULT_DELAY_S = 10;
const DEFAULT_MAX_DELAY_S = 600;

export function retriesText(r: RetryPolicy): string {
  if (r.count === 0) return 'none';
  const tries = `${r.count} after the first`;
  const delay = seconds(r.delay_seconds ?? DEFAULT_DELAY_S);
  switch (r.strategy ?? 'fixed') {
    case 'immediate':
      return `${tries}, at once`;
    case 'fixed':
      return `${tries}, ${delay} apart`;
    case 'exponential':
      return `${tries}, ${delay} apart doubling each time, at most ${seconds(r.max_delay_seconds ?? DEFAULT_MAX_DELAY_S)}`;
  }
}

/** The policy's rules, one phrase each; with neither threshold the first failing verdict alerts (the policy's N = 1). */
export function alertPolicyText(a: AlertPolicy): string[] {
  const when: string[] = [];
  if (a.after_failures !== undefined) when.push(`after ${a.after_failures} failing ${a.after_failures === 1 ? 'run' : 'runs in a row'}`);
  if (a.after_minutes !== undefined) when.push(`after ${seconds(a.after_minutes * 60)} failing`);
  const rules = [when.length ? `alert ${when.join(', or ')}` : 'alert on the first failing run'];
  if (a.remind_every !== undefined) rules.push(`remind every ${a.remind_every} failing runs`);
  rules.push(a.on_recovery === false ? 'no word on recovery' : 'tell when it recovers');
  if (a.degraded_ms !== undefined) rules.push(`degraded when a pass takes over ${duration(a.degraded_ms)}`);
  return rules;
}

export function CheckSettings({ check: c }: { check: MonitorCheckState }) {
  return (
    <dl class="facts check-settings">
      <dt>Suite</dt>
      <dd>
        <a href={hrefWith(['checks'], { suite: c.suite })} title="the suite's checks">
          {c.suite}
        </a>
        {c.group && <span class="muted"> group {c.group}</span>}
      </dd>
      <dt>File</dt>
      <dd>
        <code>{c.file}</code>
      </dd>
      <dt>Schedule</dt>
      <dd data-fact="schedule">{scheduleText(c.schedule)}</dd>
      <dt>Timeout</dt>
      <dd data-fact="timeout">{seconds(c.timeout_seconds)}</dd>
      <dt>Retries</dt>
      <dd data-fact="retries">{retriesText(c.retries)}</dd>
      <dt>Alert policy</dt>
      <dd data-fact="alert">{alertPolicyText(c.alert).join('; ')}</dd>
      <dt>Channels</dt>
      <dd data-fact="channels">{c.channels.length ? c.channels.map((ch) => <span class="tag" key={ch}>{ch}</span>) : <span class="muted">none: its alerts are only recorded</span>}</dd>
      <dt>Keep on failure</dt>
      <dd data-fact="keep">{c.keep_on_failure_seconds ? `a failing run's browser is kept ${seconds(c.keep_on_failure_seconds)}` : 'no'}</dd>
      <dt>Tags</dt>
      <dd data-fact="tags">{c.tags.length ? c.tags.map((t) => <span class="tag" key={t}>{t}</span>) : '—'}</dd>
    </dl>
  );
}

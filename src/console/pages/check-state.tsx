// What the checks list and a check's page both show of a check's state: its status, its latest runs as a row
// of marks, and the buttons that pause, resume and run it now.
import type { CheckRunPoint, MonitorCheckState, MonitorStatus } from '../../api/types.js';
import { seg } from '../api.js';
import { href } from '../router.js';
import { ErrorBox, duration, useAction, useApi, when } from '../ui.js';

/** Each status and what it means, for the filter's options and the label's tooltip (a Record, so none is missed). */
export const CHECK_STATUSES: Record<MonitorStatus, string> = {
  pending: 'not run yet',
  passing: 'its last verdict passed',
  failing: 'its last verdict failed (after its retries)',
  degraded: 'it passed, slower than its alert policy allows',
};

/** The status in colour and words; paused and running beside it, since either changes what happens next. */
export function CheckStatusLabel({ check }: { check: MonitorCheckState }) {
  return (
    <span class="check-status">
      <span class={`status check-${check.status}`} title={CHECK_STATUSES[check.status]}>
        {check.status}
      </span>
      {check.paused && <span class="badge paused">paused</span>}
      {check.running && <span class="badge running">running</span>}
    </span>
  );
}

/**
 * The latest runs as small marks, oldest left and newest right (as a timeline reads; the API lists them newest
 * first). Each links to its run; an attempt that made no run (its process failed to start) is a mark alone.
 */
export function RecentMarks({ recent }: { recent: CheckRunPoint[] }) {
  if (recent.length === 0) return <span class="muted">no runs yet</span>;
  return (
    <span class="marks" aria-label={`the latest ${recent.length} runs, newest last`}>
      {[...recent].reverse().map((r, i) => {
        const title = markTitle(r);
        return r.run_id ? <a key={`${r.run_id}-${i}`} class={`mark ${r.status}`} href={href('runs', r.run_id)} title={title} /> : <span key={`none-${i}`} class={`mark ${r.status}`} title={title} />;
      })}
    </span>
  );
}

const markTitle = (r: CheckRunPoint) => [`${r.status}, attempt ${r.attempt}`, `${when(r.started_at)}, took ${duration(r.duration_ms)}`, r.message].filter(Boolean).join('\n');

/**
 * Pause or resume, and run now. "Run now" stays offered while paused or running: the API's refusal (409) says
 * why better than a greyed button would. `onChanged` reloads what the page shows of it.
 */
export function CheckActions({ check, onChanged }: { check: MonitorCheckState; onChanged: () => void }) {
  const api = useApi();
  const { run, error, busy } = useAction();
  const act = (what: 'pause' | 'resume' | 'trigger') => async () => {
    if (await run(() => api.send('POST', `/monitors/checks/${seg(check.id)}/${what}`))) onChanged();
  };
  return (
    <div class="check-actions">
      <button type="button" disabled={busy} onClick={act(check.paused ? 'resume' : 'pause')}>
        {check.paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" disabled={busy} onClick={act('trigger')} title="Run it now, outside its schedule (its next scheduled run stays)">
        Run now
      </button>
      <ErrorBox error={error} />
    </div>
  );
}

/** When it last ran, linked to that run, and how long it took. */
export function LastRun({ check }: { check: MonitorCheckState }) {
  if (!check.last_run_at) return <span class="muted">never</span>;
  const at = when(check.last_run_at);
  return (
    <>
      {check.last_run_id ? <a href={href('runs', check.last_run_id)}>{at}</a> : at}
      {check.last_duration_ms != null && <span class="muted"> in {duration(check.last_duration_ms)}</span>}
    </>
  );
}

/** The next scheduled run; none while paused (the API says null), nor for a schedule with no slot left. */
export const nextRun = (check: MonitorCheckState) => (check.paused ? 'paused' : check.next_run_at ? when(check.next_run_at) : '—');

/** The failing streak: how many verdicts in a row, and since when. */
export function Failures({ check }: { check: MonitorCheckState }) {
  if (check.consecutive_failures === 0) return <span class="muted">0</span>;
  return (
    <span class="failures">
      {check.consecutive_failures}
      {check.failing_since && <span class="muted"> since {when(check.failing_since)}</span>}
    </span>
  );
}

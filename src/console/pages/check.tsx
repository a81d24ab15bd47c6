// One check of a monitor suite: its state and buttons, its settings, its latest runs, the scenarios its file
// ran (each to its history) and the alerts it raised.
import type { CheckRunPoint, MonitorCheckState, RunWithResults } from '../../api/types.js';
import { seg } from '../api.js';
import { href, hrefWith } from '../router.js';
import { Section, Table, duration, useLoad, when, type Column } from '../ui.js';
import { CheckAlerts } from './check-alerts.js';
import { CheckSettings } from './check-settings.js';
import { CheckActions, CheckStatusLabel, Failures, LastRun, RecentMarks, nextRun } from './check-state.js';

/** Like the list: a run started here shows up within a few seconds of ending. */
const POLL_MS = 5000;

export function CheckPage({ checkId }: { checkId: string }) {
  const path = `/monitors/checks/${seg(checkId)}`;
  const { data: c, error, reload } = useLoad((api) => api.get<MonitorCheckState>(path), path, POLL_MS);
  return (
    <Section title={`Check ${c ? `${c.suite} / ${c.name}` : checkId}`} error={error} actions={<a href={href('checks')}>All checks</a>}>
      {c && (
        <>
          <dl class="facts check-facts">
            <dt>Status</dt>
            <dd>
              <CheckStatusLabel check={c} />
            </dd>
            <dt>Last run</dt>
            <dd>
              <LastRun check={c} />
            </dd>
            <dt>Next run</dt>
            <dd>{nextRun(c)}</dd>
            <dt>Failures in a row</dt>
            <dd>
              <Failures check={c} />
            </dd>
            <dt>Latest runs</dt>
            <dd>
              <RecentMarks recent={c.recent} />
            </dd>
          </dl>
          <CheckActions check={c} onChanged={reload} />
          <h3>Settings</h3>
          <CheckSettings check={c} />
          <CheckRuns check={c} />
          <CheckAlerts check={c} pollMs={POLL_MS} />
        </>
      )}
    </Section>
  );
}

/**
 * The latest runs, and the ways to the rest: every run of a check carries the tag `check:<name>`, so the runs
 * list filtered by it is the check's whole history. A check is a file, and the scenarios in it are named inside
 * it: their histories are linked from what the latest run reported.
 */
function CheckRuns({ check: c }: { check: MonitorCheckState }) {
  const latest = c.recent.find((r) => r.run_id)?.run_id ?? c.last_run_id;
  return (
    <section class="check-runs">
      <header class="section-head">
        <h3>Latest runs</h3>
        <a href={hrefWith(['runs'], { suite: c.suite, tag: `check:${c.name}` })}>All runs of this check</a>
      </header>
      <Table rows={c.recent} columns={runColumns} rowKey={(r) => `${r.run_id ?? ''}@${r.started_at}#${r.attempt}`} empty="No runs yet." />
      {latest && <ScenarioHistories runId={latest} />}
    </section>
  );
}

const runColumns: Column<CheckRunPoint>[] = [
  { title: 'Started', cell: (r) => (r.run_id ? <a href={href('runs', r.run_id)}>{when(r.started_at)}</a> : when(r.started_at)) },
  { title: 'Status', cell: (r) => <span class={`badge ${r.status}`}>{r.status.replace('_', ' ')}</span> },
  { title: 'Attempt', cell: (r) => r.attempt },
  { title: 'Duration', cell: (r) => duration(r.duration_ms) },
  { title: 'Message', cell: (r) => (r.message ? <span class="run-message">{r.message}</span> : '') },
];

/** Read once per run: a finished run's scenarios do not change. */
function ScenarioHistories({ runId }: { runId: string }) {
  const path = `/runs/${seg(runId)}`;
  const { data: run } = useLoad((api) => api.get<RunWithResults>(path), path);
  if (!run || run.results.length === 0) return null;
  return (
    <p class="scenario-links">
      History of{' '}
      {run.results.map((r, i) => (
        <span key={r.id}>
          {i > 0 && ', '}
          <a href={hrefWith(['runs', 'history'], { suite: run.suite, name: r.name })}>{r.name}</a>
        </span>
      ))}
    </p>
  );
}

// One scenario across the runs kept by the service (GET /runs/history): how often it passes and only on a
// retry, how long it takes, per day as charts, and its last failure with what there is to look at.
import { useEffect, useState } from 'preact/hooks';
import type { ScenarioHistory } from '../../api/types.js';
import { Download, ReplayVideo, Screenshot, artifactPath } from '../artifacts.js';
import { href, hrefWith } from '../router.js';
import { Section, Table, duration, percent, useLoad, when, type Column } from '../ui.js';
import { HistoryCharts } from './history-charts.js';
import { Commit } from './runs.js';

/** New results come as runs finish: now and then is enough. */
const POLL_MS = 15_000;

type Point = ScenarioHistory['points'][number];
type Failure = NonNullable<ScenarioHistory['last_failure']>;

/** The route's query names the scenario: `suite` and `name`, and optionally `branch` and `file`. */
export function ScenarioHistoryPage({ query }: { query: URLSearchParams }) {
  const suite = query.get('suite') ?? '';
  const name = query.get('name') ?? '';
  const file = query.get('file') ?? '';
  const [branch, setBranch] = useState(query.get('branch') ?? '');
  // A move to the page (another scenario's link, Back) names its own branch; typing here only replaces the address.
  useEffect(() => setBranch(query.get('branch') ?? ''), [query]);
  const chooseBranch = (value: string) => {
    setBranch(value);
    // In the address without a new history entry: a reload or Back shows the branch that was looked at.
    history.replaceState(null, '', hrefWith(['runs', 'history'], { suite, name, file, branch: value.trim() }));
  };
  const params = new URLSearchParams({ suite, name });
  if (file) params.set('file', file);
  if (branch.trim()) params.set('branch', branch.trim());
  const path = `/runs/history?${params}`;
  const missing = !suite || !name;
  const { data: h, error } = useLoad((api) => (missing ? Promise.resolve(undefined) : api.get<ScenarioHistory>(path)), path, missing ? undefined : POLL_MS);
  return (
    <Section
      title={name ? `History of ${name}` : 'Scenario history'}
      error={missing ? 'No scenario named: open a history from a scenario of a run.' : error}
      actions={suite && <a href={hrefWith(['runs'], { suite })}>Runs of {suite}</a>}
    >
      {!missing && (
        <>
          <form class="filters" role="search" aria-label="Filter the history" onSubmit={(e) => e.preventDefault()}>
            <span class="muted">
              suite <b>{suite}</b>
              {file && (
                <>
                  , file <code>{file}</code>
                </>
              )}
            </span>
            <label>
              Branch <input type="search" name="branch" placeholder="all branches" value={branch} onInput={(e) => chooseBranch(e.currentTarget.value)} />
            </label>
          </form>
          {!h && !error && <p class="muted">Loading…</p>}
          {h && <HistoryBody history={h} />}
        </>
      )}
    </Section>
  );
}

function HistoryBody({ history: h }: { history: ScenarioHistory }) {
  if (h.results === 0) return <p class="muted">No results of this scenario yet.</p>;
  return (
    <>
      <dl class="facts history-facts">
        <dt>Results counted</dt>
        <dd>
          {h.results} <span class="muted">(the newest)</span>
        </dd>
        <dt>Pass rate</dt>
        <dd data-fact="pass-rate">{percent(h.pass_rate)}</dd>
        <dt>Flaky rate</dt>
        <dd data-fact="flaky-rate">{percent(h.flaky_rate)}</dd>
        <dt>Duration</dt>
        <dd data-fact="duration">
          p50 {duration(h.duration_ms.p50)}, p95 {duration(h.duration_ms.p95)}
        </dd>
        <dt>Outcomes</dt>
        <dd>
          {h.passed} passed ({h.flaky} of them flaky), {h.failed} failed, {h.errored} errors
        </dd>
      </dl>
      <HistoryCharts days={h.by_day} />
      <LastFailure failure={h.last_failure} />
      <details class="points">
        <summary>Every result counted ({h.points.length})</summary>
        <Table rows={[...h.points].reverse()} columns={pointColumns} rowKey={(p) => p.result_id} empty="No results." />
      </details>
    </>
  );
}

const pointColumns: Column<Point>[] = [
  { title: 'Started', cell: (p) => <a href={hrefWith(['runs', p.run_id], { result: p.result_id })}>{when(p.started_at)}</a> },
  { title: 'Status', cell: (p) => <span class={`badge ${p.status}`}>{p.flaky ? 'flaky' : p.status}</span> },
  { title: 'Duration', cell: (p) => duration(p.duration_ms) },
];

function LastFailure({ failure: f }: { failure: Failure | null }) {
  const [playing, setPlaying] = useState(false);
  if (!f) return <p class="muted">No failure among the results counted.</p>;
  const replay = f.replay;
  return (
    <section class="last-failure">
      <h3>Last failure</h3>
      <dl class="facts">
        <dt>When</dt>
        <dd>
          <a href={hrefWith(['runs', f.run_id], { result: f.result_id })}>{when(f.started_at)}</a> <span class={`badge ${f.status}`}>{f.status}</span>
        </dd>
        <dt>Run</dt>
        <dd>
          <a href={href('runs', f.run_id)}>{f.run_id}</a>
          {f.branch && <span class="muted"> on {f.branch}</span>} {f.commit && <Commit sha={f.commit} />}
        </dd>
        <dt>Step</dt>
        <dd>
          {f.step ? (
            <>
              {f.step.name} <span class="kind">{f.step.kind}</span> {f.step.location && <span class="loc">{f.step.location}</span>}
            </>
          ) : (
            'no failing step (the scenario ran out of time between steps, or failed outside them)'
          )}
        </dd>
      </dl>
      {f.message && <pre class="failure-message">{f.message}</pre>}
      <p class="artifacts">
        {f.trace_url && <Download path={artifactPath(f.trace_url)} name="trace.zip" label="Download the trace" />}
        {replay && !playing && (
          <button type="button" onClick={() => setPlaying(true)}>
            {replay.offset_ms != null ? `Play the replay from the failing step (${duration(replay.offset_ms)})` : 'Play the replay'}
          </button>
        )}
      </p>
      {replay && playing && <ReplayVideo path={artifactPath(replay.video_url)} name="replay" startMs={replay.offset_ms} markers={[]} />}
      {f.screenshot_url && <Screenshot path={artifactPath(f.screenshot_url)} name="the screenshot of the failure" />}
    </section>
  );
}

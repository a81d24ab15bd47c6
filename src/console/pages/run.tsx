// One run kept by the service: what it ran and how it ended, and each scenario's result as the HTML report
// shows it (pages/run-result.tsx), read from the service rather than from the runner's output folder.
import { useEffect, useState } from 'preact/hooks';
import type { RunWithResults } from '../../api/types.js';
import { seg, type Api } from '../api.js';
import { href, hrefWith } from '../router.js';
import { Section, useLoad, when } from '../ui.js';
import { ResultSection } from './run-result.js';
import { Commit, Counts, RunStatusLabel, runDuration, shardOf } from './runs.js';

/** Polled only while the runner still reports into it: a finished run takes nothing more. */
const POLL_MS = 3000;

/** `focus`: a result to open and scroll to (a history's last failure links to it). */
export function RunPage({ runId, focus }: { runId: string; focus?: string | null | undefined }) {
  const path = `/runs/${seg(runId)}`;
  const [running, setRunning] = useState(true);
  const load = async (api: Api) => {
    const run = await api.get<RunWithResults>(path);
    setRunning(run.status === 'running');
    return run;
  };
  const { data: run, error } = useLoad(load, path, running ? POLL_MS : undefined);
  const ready = run !== undefined;
  useEffect(() => {
    if (ready && focus) document.getElementById(resultAnchor(focus))?.scrollIntoView();
  }, [ready, focus]);
  return (
    <Section title={`Run ${run ? `of ${run.suite}` : runId}`} error={error} actions={<a href={href('runs')}>All runs</a>}>
      {run && (
        <>
          <RunFacts run={run} />
          <h3>Scenarios</h3>
          {run.results.length === 0 && <p class="muted">{run.status === 'running' ? 'No scenario has finished yet.' : 'No scenario results.'}</p>}
          {run.results.map((r) => (
            <ResultSection key={r.id} id={resultAnchor(r.id)} run={run} result={r} open={r.id === focus || r.status !== 'passed' || r.flaky} />
          ))}
        </>
      )}
    </Section>
  );
}

const resultAnchor = (resultId: string) => `result-${resultId}`;

function RunFacts({ run }: { run: RunWithResults }) {
  const s = run.summary;
  return (
    <dl class="facts run-facts">
      <dt>Id</dt>
      <dd>
        <code>{run.id}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <RunStatusLabel run={run} />
      </dd>
      <dt>Suite</dt>
      <dd>
        <a href={hrefWith(['runs'], { suite: run.suite })} title="the suite's runs">
          {run.suite}
        </a>
      </dd>
      <dt>Branch</dt>
      <dd>{run.branch ?? '—'}</dd>
      <dt>Commit</dt>
      <dd>{run.commit ? <Commit sha={run.commit} /> : '—'}</dd>
      <dt>Tags</dt>
      <dd>
        {run.tags.length
          ? run.tags.map((t) => (
              <span class="tag" key={t}>
                {t}
              </span>
            ))
          : '—'}
      </dd>
      <dt>Trigger</dt>
      <dd>{run.trigger}</dd>
      {run.shard && (
        <>
          <dt>Shard</dt>
          <dd>{shardOf(run)}</dd>
        </>
      )}
      <dt>Started</dt>
      <dd>{when(run.started_at)}</dd>
      <dt>Finished</dt>
      <dd>{run.finished_at ? `${when(run.finished_at)} (${runDuration(run)})` : '—'}</dd>
      <dt>Summary</dt>
      <dd>
        {s ? (
          <>
            {s.total} scenarios: <Counts run={run} />
            {s.errored > 0 && <span class="muted"> ({s.errored} of the failures errors)</span>}
            {(s.timed_out ?? 0) > 0 && <span class="muted"> {s.timed_out} timed out</span>}
            {(s.skipped ?? 0) > 0 && <span class="muted"> {s.skipped} not started</span>}
          </>
        ) : (
          // The runner sends the summary when it finishes; until then, what has come in.
          `${run.results.length} scenario results so far`
        )}
      </dd>
    </dl>
  );
}

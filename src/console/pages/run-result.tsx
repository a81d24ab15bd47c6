// One scenario's result in a run, as the HTML report shows it: its status, time and attempts, its steps with
// the failing one's error, its screenshots inline, its trace and other files, the replay from the failing
// step, and its earlier attempts. Closed results and attempts load nothing: a run of hundreds of passing
// scenarios costs no image until one is opened.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { RunArtifact, RunResult, RunStep, RunWithResults } from '../../api/types.js';
import { Download, ReplayVideo, Screenshot, artifactPath, type ReplayMarker } from '../artifacts.js';
import { hrefWith } from '../router.js';
import { duration, when } from '../ui.js';

export function ResultSection({ id, run, result, open }: { id: string; run: RunWithResults; result: RunResult; open: boolean }) {
  return (
    <section class={`scenario ${result.status}${result.flaky ? ' flaky' : ''}`} id={id} data-result={result.id}>
      <Folded
        open={open}
        summary={
          <>
            <ResultBadges result={result} />
            <span class="sname">{result.name}</span>
            <span class="file">{result.file}</span>
            <span class="dur">{duration(result.duration_ms)}</span>
          </>
        }
      >
        {() => <ResultBody run={run} result={result} />}
      </Folded>
    </section>
  );
}

/** A <details> whose body is made only once opened: what it would fetch (screenshots) waits until then. */
function Folded({ open, summary, children, class: className }: { open: boolean; summary: ComponentChildren; children: () => ComponentChildren; class?: string }) {
  const [shown, setShown] = useState(open);
  return (
    <details class={className} open={open} onToggle={(e) => setShown(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {shown && children()}
    </details>
  );
}

function ResultBadges({ result }: { result: RunResult }) {
  return (
    <>
      <span class={`badge ${result.status}`}>{result.status === 'error' ? 'error (infrastructure)' : result.status}</span>
      {result.flaky && <span class="badge flaky">flaky</span>}
      {result.timed_out && <span class="badge failed">timed out</span>}
      {result.interrupted && <span class="badge failed">interrupted</span>}
      {result.hook && <span class="tag">{result.hook} hook</span>}
      {result.attempt > 1 && <span class="tag attempts">attempt {result.attempt}</span>}
    </>
  );
}

function ResultBody({ run, result }: { run: RunWithResults; result: RunResult }) {
  const own = result.artifacts.filter((a) => a.attempt === result.attempt);
  const trace = own.find((a) => a.kind === 'trace');
  const video = result.replay?.video ? own.find((a) => a.kind === 'video' && a.name === result.replay!.video) : undefined;
  return (
    <div class="body">
      <p class="meta">
        <a href={hrefWith(['runs', 'history'], { suite: run.suite, name: result.name })}>History of this scenario</a>
        <span>started {when(result.started_at)}</span>
        {result.tags.map((t) => (
          <span class="tag" key={t}>
            {t}
          </span>
        ))}
        {result.session_id && (
          <span>
            session <code>{result.session_id}</code>
          </span>
        )}
        {trace && (
          <span title={`open with: bcs show-trace ${trace.name.split('/').pop()}`}>
            <Download path={artifactPath(trace.url)} name={trace.name} label="Download the trace" />
          </span>
        )}
      </p>
      {video && <Replay result={result} video={video} />}
      <AttemptBody steps={result.steps} artifacts={own} shownAbove={[trace?.id, video?.id]} />
      {result.previous_attempts.length > 0 && <h4>Earlier attempts</h4>}
      {result.previous_attempts.map((a) => (
        <Folded
          key={a.attempt}
          class="attempt"
          open={false}
          summary={
            <>
              attempt {a.attempt}: {a.status} in {duration(a.duration_ms)}
              <FailedAt steps={a.steps} />
            </>
          }
        >
          {() => <AttemptBody steps={a.steps} artifacts={result.artifacts.filter((x) => x.attempt === a.attempt)} />}
        </Folded>
      ))}
    </div>
  );
}

/** Where an attempt failed, in a line: the step and its message's first line. */
function FailedAt({ steps }: { steps: RunStep[] }) {
  const step = failingStep(steps);
  return step?.error ? <>, at '{step.name}': {step.error.message.split('\n', 1)[0]}</> : null;
}

/** The step that failed the scenario: the first failed one not let go (`continue_on_error`), as the service picks it. */
function failingStep(steps: RunStep[]): RunStep | undefined {
  return steps.find((s) => s.status === 'failed' && s.continued !== 'ignored');
}

/**
 * One attempt's steps, each with the files it made; the files no step made are listed after, but for those
 * `shownAbove` (the trace and replay of the last attempt, which have their own place).
 */
function AttemptBody({ steps, artifacts, shownAbove = [] }: { steps: RunStep[]; artifacts: RunArtifact[]; shownAbove?: (string | undefined)[] }) {
  const ofStep = (st: RunStep) => artifacts.filter((a) => a.step_index === st.index || (a.step_index === null && st.artifacts?.includes(a.name)));
  const shown = new Set([...shownAbove, ...steps.flatMap((st) => ofStep(st).map((a) => a.id))]);
  const rest = artifacts.filter((a) => !shown.has(a.id));
  return (
    <>
      <h4>Steps</h4>
      {steps.length === 0 && <p class="muted">No steps ran.</p>}
      <ol class="steps">
        {steps.map((st) => (
          <StepItem key={st.index} step={st} artifacts={ofStep(st)} />
        ))}
      </ol>
      {rest.length > 0 && (
        <p class="artifacts">
          Files:{' '}
          {rest.map((a) => (
            <Download key={a.id} path={artifactPath(a.url)} name={a.name} />
          ))}
        </p>
      )}
    </>
  );
}

const MARKS = { passed: '✓', failed: '✗', skipped: '–' } as const;

function StepItem({ step: st, artifacts }: { step: RunStep; artifacts: RunArtifact[] }) {
  const classes = ['step', st.status, st.phase, st.continued ?? ''].filter(Boolean).join(' ');
  // Nested steps (a `group`, a `retry` block's body) indented as deep as they are, within reason.
  const indent = st.depth ? { marginLeft: `${Math.min(12, st.depth) * 16}px` } : undefined;
  return (
    <li class={classes} data-status={st.status} style={indent}>
      <div class="line">
        <span class="mark">{MARKS[st.status]}</span>
        <span class="name">{st.name}</span>
        {st.iteration !== undefined && <span class="tag">#{st.iteration}</span>}
        {st.attempts !== undefined && st.attempts > 1 && <span class="tag attempts">{st.attempts} attempts</span>}
        {st.continued === 'soft' && <span class="tag">soft: the scenario fails at the end</span>}
        {st.continued === 'ignored' && <span class="tag">ignored (continue_on_error)</span>}
        <span class="kind">{st.kind}</span>
        {st.status !== 'skipped' && <span class="dur">{duration(st.duration_ms)}</span>}
        {st.replay_offset_ms !== undefined && <span class="offset">▶ {duration(st.replay_offset_ms)}</span>}
        {st.location && <span class="loc">{st.location}</span>}
      </div>
      {st.error && (
        <div class="step-error">
          <span class="tag">{st.error.kind}</span>
          <pre>{st.error.message}</pre>
          {st.error.location && <div class="loc">at {st.error.location}</div>}
        </div>
      )}
      {st.note && <div class="muted">{st.note}</div>}
      {artifacts.length > 0 && (
        <div class="artifacts">
          {artifacts.map((a) =>
            a.kind === 'screenshot' ? <Screenshot key={a.id} path={artifactPath(a.url)} name={a.name} /> : <Download key={a.id} path={artifactPath(a.url)} name={a.name} />,
          )}
        </div>
      )}
    </li>
  );
}

/** The replay, opened on request (a video is megabytes): from the failing step's marker when there is one. */
function Replay({ result, video }: { result: RunResult; video: RunArtifact }) {
  const [open, setOpen] = useState(false);
  const start = failingStep(result.steps)?.replay_offset_ms;
  // Without the markers the runner sent, the steps' own offsets are the chapters (as the HTML report does it).
  const markers: ReplayMarker[] =
    result.replay?.markers ?? result.steps.filter((s) => s.replay_offset_ms !== undefined).map((s) => ({ name: s.name, offset_ms: s.replay_offset_ms! }));
  return (
    <>
      <h4>Replay</h4>
      {open ? (
        <ReplayVideo path={artifactPath(video.url)} name={video.name} startMs={start} markers={markers} />
      ) : (
        <button type="button" onClick={() => setOpen(true)}>
          {start !== undefined ? `Play the replay from the failing step (${duration(start)})` : 'Play the replay'}
        </button>
      )}
    </>
  );
}

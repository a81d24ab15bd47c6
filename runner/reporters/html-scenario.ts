// One scenario in the HTML report: its replay with markers, the step tree, console errors and failed
// requests, and its earlier attempts. Every string from a result is escaped: step names, messages and
// console output are whatever the scenario and the page under test made them.
import { stripVTControlCharacters } from 'node:util';
import type { KeptSession, ScenarioResult, StepResult } from './results.js';
import { codeFrame } from './code-frame.js';
import { href, type Cue, type Embedded, type Embeds } from './html-embed.js';
import { counts, superseded } from './summary.js';
import { formatMs, formatOffset } from './text.js';

/** Text for HTML: escaped, without terminal colour codes, and without control characters HTML forbids. */
export function esc(value: unknown): string {
  return stripVTControlCharacters(String(value))
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd')
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A data: URI this report built is base64 and needs no escaping (and escaping 60 MB of it is slow). */
function srcOf(e: Embedded): string {
  return e.embedded ? e.src : esc(e.src);
}

/** The id of a step's row, for links from the failure list. */
export function stepId(scenarioIndex: number, attempt: number, stepIndex: number): string {
  return `s${scenarioIndex}-a${attempt}-${stepIndex}`;
}

export function scenarioSection(s: ScenarioResult, index: number, embeds: Embeds, openByDefault: boolean): string {
  const attempt = s.attempt ?? 1;
  const badges = [
    `<span class="badge ${s.status}">${esc(s.status === 'error' ? 'error (infrastructure)' : s.status)}</span>`,
    s.flaky ? `<span class="badge flaky">flaky</span>` : '',
    s.timed_out ? `<span class="badge failed">timed out</span>` : '',
    s.interrupted ? `<span class="badge failed">interrupted</span>` : '',
    attempt > 1 ? `<span class="tag attempts">attempt ${attempt}</span>` : '',
    hookOf(s) ? `<span class="tag">${esc(hookOf(s))} hook</span>` : '',
  ].join('');
  const earlier = (s.previous_attempts ?? [])
    .map((a) => {
      const n = a.attempt ?? 1;
      return `<details class="attempt"><summary>attempt ${n}: ${esc(a.status)} in ${esc(formatMs(a.duration_ms))}${failedStepSummary(a)}</summary>${attemptBody(a, index, n, embeds)}</details>`;
    })
    .join('');
  const open = openByDefault || s.status !== 'passed' || s.flaky;
  return `<section class="scenario ${s.status}${s.flaky ? ' flaky' : ''}" id="s${index}">
<details${open ? ' open' : ''}><summary>${badges}<span class="sname">${esc(s.name)}</span><span class="file">${esc(s.file)}</span><span class="dur">${esc(formatMs(s.duration_ms))}</span></summary>
<div class="body">
<div class="meta">${meta(s)}</div>
${attemptBody(s, index, attempt, embeds)}
${earlier ? `<h4>Earlier attempts</h4>${earlier}` : ''}
</div></details></section>`;
}

function meta(s: ScenarioResult): string {
  const items = [
    s.tags.length ? `tags: ${s.tags.map((t) => `<span class="tag">${esc(t)}</span>`).join(' ')}` : '',
    `started <time>${esc(s.started_at)}</time>`,
    s.session_id ? `session <code>${esc(s.session_id)}</code>` : '',
    // The session is usually gone by the time the report is read; the link works for as long as it is not.
    s.live_view_url && !s.kept_session ? `<a class="live" href="${esc(s.live_view_url)}" title="opens while the session lasts">live view</a>` : '',
    s.kept_session ? keptSession(s.kept_session) : '',
    // A folder is named only when this attempt wrote something there (a passing retry may write nothing).
    hasArtifacts(s) ? `artifacts in <code>${esc(s.artifact_dir)}/</code>` : '',
    s.trace ? `<a class="trace" href="${esc(s.trace)}" title="open with: bcs show-trace ${esc(s.trace)}">trace</a>` : '',
  ];
  return items.filter(Boolean).map((i) => `<span>${i}</span>`).join('');
}

/** The browser the service keeps at the failing step: its live view is where to look, until it ends. */
function keptSession(k: KeptSession): string {
  const until = `kept until <time>${esc(k.until)}</time>`;
  return k.live_view_url
    ? `<a class="live kept" href="${esc(k.live_view_url)}" title="the page as the failing step left it; end it with DELETE /browsers/${esc(k.session_id)}">browser kept at the failing step</a> ${until}`
    : `browser <code>${esc(k.session_id)}</code> ${until}`;
}

function failedStepSummary(a: ScenarioResult): string {
  const step = a.steps.find(counts);
  return step?.error ? ` at '${esc(step.name)}': ${esc(firstLineOf(step.error.message))}` : '';
}

function attemptBody(s: ScenarioResult, index: number, attempt: number, embeds: Embeds): string {
  const videoId = s.replay ? `v${index}-a${attempt}` : undefined;
  const steps = s.steps.map((st, i) => stepItem(st, stepId(index, attempt, i), videoId, embeds)).join('\n');
  return `${s.replay && videoId ? replay(s, videoId, embeds) : ''}
<h4>Steps</h4><ol class="steps">${steps}</ol>${logs(s)}`;
}

/** The video, a timeline with a tick per marker, and the markers as a list; both seek the video. */
function replay(s: ScenarioResult, videoId: string, embeds: Embeds): string {
  const video = embeds.get(s.replay!.video);
  const cues: Cue[] = embeds.cues(s.replay!.vtt);
  // Without the WebVTT file the steps' own offsets are the markers.
  const markers = cues.length
    ? cues
    : s.steps.filter((st) => st.replay_offset_ms !== undefined).map((st) => ({ start_ms: st.replay_offset_ms!, text: st.name }));
  const seek = (ms: number) => `data-seek="${Math.round(ms)}" data-video="${videoId}"`;
  const ticks = markers.map((m) => `<span class="tick" ${seek(m.start_ms)} title="${esc(`${formatOffset(m.start_ms)} ${m.text}`)}"></span>`).join('');
  const list = markers
    .map((m) => `<li><button type="button" ${seek(m.start_ms)}><span class="offset">${esc(formatOffset(m.start_ms))}</span> ${esc(m.text)}</button></li>`)
    .join('');
  const note = video.note ? `<div class="note">${esc(video.note)}</div>` : '';
  return `<h4>Replay</h4><div class="replay">
<video id="${videoId}" controls preload="metadata" src="${srcOf(video)}"></video>
<div class="timeline">${ticks}</div>
<ol class="markers">${list}</ol>
${note}${video.embedded ? '' : `<div><a href="${esc(video.src)}">${esc(s.replay!.video)}</a></div>`}
</div>`;
}

function stepItem(st: StepResult, id: string, videoId: string | undefined, embeds: Embeds): string {
  const classes = ['step', st.status, st.phase, st.continued ?? '', superseded(st) ? 'superseded' : ''].filter(Boolean).join(' ');
  const mark = st.status === 'passed' ? '✓' : st.status === 'skipped' ? '–' : '✗';
  const seekable = videoId && st.replay_offset_ms !== undefined;
  const lineAttrs = seekable
    ? ` data-seek="${Math.round(st.replay_offset_ms!)}" data-video="${videoId}" role="button" tabindex="0" title="show this step in the replay"`
    : '';
  const tags = [
    st.iteration !== undefined ? `<span class="tag">#${st.iteration}</span>` : '',
    st.attempts && st.attempts > 1 ? `<span class="tag attempts">${st.attempts} attempts</span>` : '',
    st.continued === 'soft' ? '<span class="tag soft">soft: the scenario fails at the end</span>' : '',
    st.continued === 'ignored' ? '<span class="tag ignored">ignored (continue_on_error)</span>' : '',
  ].join('');
  const time = st.status === 'skipped' ? '' : `<span class="dur">${esc(formatMs(st.duration_ms))}</span>`;
  const offset = seekable ? `<span class="offset">▶ ${esc(formatOffset(st.replay_offset_ms!))}</span>` : '';
  const line = `<div class="line"${lineAttrs}><span class="mark">${mark}</span><span class="name">${esc(st.name)}</span>${tags}<span class="kind">${esc(st.kind)}</span>${time}${offset}<span class="loc">${esc(`${st.source.file}:${st.source.line}:${st.source.col}`)}</span>${requests(st)}</div>`;
  const detail = stepDetail(st, embeds);
  const depth = st.depth ? ` data-depth="${Math.min(12, st.depth)}"` : '';
  return `<li class="${classes}" id="${id}"${depth} data-status="${st.status}">${line}${detail ? `<div class="detail">${detail}</div>` : ''}</li>`;
}

/** The API calls' x-request-ids, to look the step up in the service's log. */
function requests(st: StepResult): string {
  if (!st.request_ids.length) return '';
  return `<span class="reqs" title="x-request-id of each API call">${st.request_ids.map((r) => `<code>${esc(r)}</code>`).join('')}</span>`;
}

function stepDetail(st: StepResult, embeds: Embeds): string {
  const parts: string[] = [];
  if (st.error) {
    parts.push(
      `<div class="error"><span class="tag">${esc(st.error.kind)}</span><pre>${esc(st.error.message)}</pre><div class="loc">at ${esc(st.error.location)}</div>${sourceOf(st.error.location)}</div>`,
    );
  }
  if (st.note) parts.push(`<div class="muted">${esc(st.note)}</div>`);
  if (st.telemetry?.length) {
    parts.push(`<ul class="telemetry">${st.telemetry.map((t) => `<li><b>${esc(t.type)}</b> <time>${esc(t.at)}</time> ${esc(t.message)}</li>`).join('')}</ul>`);
  }
  if (st.artifacts.length) parts.push(`<div class="artifacts">${st.artifacts.map((a) => artifact(a.type, a.path, embeds)).join('')}</div>`);
  if (st.output !== undefined) parts.push(`<pre class="output">returned ${esc(JSON.stringify(st.output, null, 2))}</pre>`);
  return parts.join('');
}

function artifact(type: string, path: string, embeds: Embeds): string {
  const e = embeds.get(path);
  const note = e.note ? `<div class="note">${esc(e.note)}</div>` : '';
  if (type === 'screenshot' && e.embedded) {
    return `<figure><img class="shot" src="${srcOf(e)}" alt="${esc(path)}"><figcaption>${esc(path)}</figcaption></figure>`;
  }
  if (type === 'error_context') return errorContext(path, embeds);
  // The video is embedded once, in the player above; here it is only named.
  if (type === 'video') return `<div><a href="${esc(href(path))}">${esc(path)}</a> <span class="muted">(the replay above)</span></div>`;
  return `<div><a href="${esc(e.src)}">${esc(path)}</a>${note}</div>`;
}

/** The page's accessibility tree when the step failed, shown open under the error (the file has the error too). */
function errorContext(path: string, embeds: Embeds): string {
  const text = embeds.text(path);
  const link = `<a href="${esc(href(path))}">${esc(path)}</a>`;
  if (text === undefined) return `<div>${link} <span class="muted">(the file is missing)</span></div>`;
  const snapshot = /# Page snapshot[^\n]*\n+```yaml\n([\s\S]*?)\n```/.exec(text)?.[1] ?? text;
  return `<details class="error-context" open><summary>the page's accessibility tree when it failed: ${link}</summary><pre class="aria">${esc(snapshot)}</pre></details>`;
}

/** Everything the browser logged as going wrong during the scenario, with the step it happened in. */
function logs(s: ScenarioResult): string {
  const rows = s.steps.flatMap((st) =>
    (st.telemetry ?? []).map((t) => `<tr><td><time>${esc(t.at)}</time></td><td>${esc(t.type)}</td><td>${esc(st.name)}</td><td>${esc(t.message)}</td></tr>`),
  );
  if (!rows.length) return '';
  return `<h4>Console errors and failed requests (${rows.length})</h4><table class="logs">${rows.join('')}</table>`;
}

function firstLineOf(text: string): string {
  return stripVTControlCharacters(text).split('\n', 1)[0] ?? '';
}

/** The suite hook (`before`/`after` in bcs.config.yaml) a scenario is, when it is one. */
function hookOf(s: ScenarioResult): string | undefined {
  return (s as { hook?: string }).hook;
}

function hasArtifacts(s: ScenarioResult): boolean {
  return s.replay !== undefined || s.steps.some((step) => step.artifacts.length > 0);
}

/** The scenario's lines around the failing step, the step's line marked. */
function sourceOf(location: string): string {
  const frame = codeFrame(location);
  return frame.length ? `<pre class="source">${frame.map((l) => (l.startsWith('>') ? `<mark>${esc(l)}</mark>` : esc(l))).join('\n')}</pre>` : '';
}

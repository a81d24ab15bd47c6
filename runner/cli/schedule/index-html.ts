// The history's index.html: one self-contained page (no scripts, no external assets) with the pass/fail
// trend as a strip of coloured cells and every run, newest first, linking to its folder's results.
import type { HistoryEntry, HistoryIndex, RunStatus } from './history-entry.js';

const COLOURS: Record<RunStatus, string> = {
  passed: '#2da44e',
  failed: '#cf222e',
  timeout: '#bf8700',
  error: '#8250df',
  invalid: '#57606a',
  interrupted: '#afb8c1',
};
const TREND_RUNS = 100;

export function indexHtml(index: HistoryIndex): string {
  const runs = index.runs;
  const recent = runs.slice(-TREND_RUNS);
  const passed = recent.filter((r) => r.status === 'passed').length;
  const rate = recent.length ? Math.round((passed / recent.length) * 100) : 0;
  const trend = recent
    .map((r) => `<a class="cell" style="background:${COLOURS[r.status]}" href="#${esc(r.id)}" title="${esc(`${r.started_at}: ${r.status}`)}"></a>`)
    .join('');
  const rows = [...runs].reverse().map(row).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bcs schedule history</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem; color: #1f2328; }
.trend { display: flex; flex-wrap: wrap; gap: 2px; margin: 1rem 0; }
.cell { width: 12px; height: 24px; border-radius: 2px; display: inline-block; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #d0d7de; vertical-align: top; }
.status { font-weight: 600; }
.failures { margin: 0; padding-left: 1rem; color: #57606a; }
</style></head><body>
<h1>Scheduled runs</h1>
<p>${runs.length} run${runs.length === 1 ? '' : 's'}; ${passed} of the last ${recent.length} passed (${rate}%).</p>
<div class="trend">${trend}</div>
<table><thead><tr><th>started</th><th>status</th><th>scenarios</th><th>duration</th><th>failures</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}

function row(r: HistoryEntry): string {
  const s = r.summary;
  const counts = `${s.passed}/${s.total} passed${s.flaky ? `, ${s.flaky} flaky` : ''}${s.skipped ? `, ${s.skipped} not run` : ''}`;
  const reports = r.pruned ? [] : (r.reports ?? []);
  const started = reports.length ? `<a href="${esc(r.id)}/${esc(reports[0]!)}">${esc(r.started_at)}</a>` : esc(r.started_at);
  const others = reports.slice(1).map((f) => ` <small><a href="${esc(r.id)}/${esc(f)}">${esc(f)}</a></small>`).join('');
  const failures = r.failures.length
    ? `<ul class="failures">${r.failures.map((f) => `<li>${esc([f.scenario, f.message].filter(Boolean).join(': '))}${f.location ? ` <small>${esc(f.location)}</small>` : ''}</li>`).join('')}</ul>`
    : '';
  return `<tr id="${esc(r.id)}"><td>${started}${others}</td><td class="status" style="color:${COLOURS[r.status]}">${r.status}</td><td>${counts}</td><td>${(r.duration_ms / 1000).toFixed(1)} s</td><td>${failures}</td></tr>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

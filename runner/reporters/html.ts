// `--reporter html`: <output-dir>/report.html, one self-contained file per run: every scenario's step tree
// with errors, locations, request ids and telemetry notes; screenshots and the replay video embedded, the
// video's markers and each step seeking it. No network: it opens from a CI artifact as it is.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReporter } from './reporter.js';
import type { RunResult } from './results.js';
import { CSP, SCRIPT, STYLE } from './html-assets.js';
import { DEFAULT_EMBED_BYTES, planEmbeds } from './html-embed.js';
import { esc, scenarioSection, stepId } from './html-scenario.js';
import { failuresOf, runStats } from './summary.js';
import { formatMs } from './text.js';

export interface HtmlOptions {
  /** The most bytes of screenshots and video to embed; past it artifacts are linked. Default 50 MB. */
  maxEmbedBytes?: number;
}

export function htmlReporter(outputDir: string, opts: HtmlOptions = {}): RunReporter & { file: string } {
  const file = join(outputDir, 'report.html');
  let planned: number | undefined;
  return {
    name: 'html',
    file,
    files: [file],
    runStarted(_target, plans) {
      planned = plans.length;
    },
    async runFinished(run) {
      await mkdir(outputDir, { recursive: true });
      const partial = `${file}.${process.pid}.tmp`;
      await writeFile(partial, await htmlReport(run, outputDir, { ...opts, planned }));
      await rename(partial, file);
    },
  };
}

/** The report as text; artifact paths in `run` are relative to `outputDir`, where the report goes. */
export async function htmlReport(run: RunResult, outputDir: string, opts: HtmlOptions & { planned?: number } = {}): Promise<string> {
  const embeds = await planEmbeds(run, outputDir, opts.maxEmbedBytes ?? DEFAULT_EMBED_BYTES);
  const stats = runStats(run, opts.planned);
  const chips: Array<[string, number]> = [
    ['passed', stats.passed],
    ['failed', stats.failed],
    ['flaky', stats.flaky],
    ['skipped', stats.skipped],
    ['errored', stats.errored],
    ['timed out', stats.timedOut],
  ];
  const statHtml = chips
    .filter(([label, n]) => n > 0 || label === 'passed' || label === 'failed')
    .map(([label, n]) => `<span class="stat ${label.replace(' ', '-')}">${n} ${label}</span>`)
    .join('');
  const title = `bcs: ${[`${stats.passed} passed`, ...(stats.flaky ? [`${stats.flaky} flaky`] : []), `${stats.failed + stats.errored} failed`].join(', ')}`;
  const few = run.scenarios.length <= 3;
  const sections = run.scenarios.map((s, i) => scenarioSection(s, i, embeds, few)).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head><body>
<header>
<h1>${esc(title)}</h1>
<div class="run-meta">started <time>${esc(run.started_at)}</time> · ${esc(formatMs(run.duration_ms))} · ${esc(target(run))}</div>
<div class="stats">${statHtml}</div>
<div class="filters"><button type="button" data-filter="all">all scenarios</button> <button type="button" data-filter="failed">only failed and flaky</button></div>
${failureList(run)}
${notStartedList(run)}
</header>
<main>
${sections}
</main>
<script>${SCRIPT}</script>
</body></html>
`;
}

function target(run: RunResult): string {
  return run.target.kind === 'embedded' ? 'embedded service' : run.target.base_url;
}

/** The failures up front, each a link to its step in the tree. */
function failureList(run: RunResult): string {
  const failures = failuresOf(run);
  if (!failures.length) return '';
  const items = failures.map((f) => {
    const index = run.scenarios.indexOf(f.scenario);
    const anchor = f.step ? stepId(index, f.scenario.attempt ?? 1, f.scenario.steps.indexOf(f.step)) : `s${index}`;
    const what = f.step ? `${f.scenario.name} › ${f.step.name}` : f.scenario.name;
    const message = f.message.split('\n', 1)[0] ?? '';
    return `<li><a href="#${anchor}">${esc(what)}</a> <span class="tag">${esc(f.kind)}</span> ${esc(message)} <span class="loc">at ${esc(f.location)}</span></li>`;
  });
  return `<h4>Failures</h4><ol class="failures">${items.join('')}</ol>`;
}

/** Selected scenarios that never started (--bail, Ctrl-C, a failed before hook). */
function notStartedList(run: RunResult): string {
  const list = (run as { skipped?: Array<{ name: string; file: string; reason: string }> }).skipped ?? [];
  if (!list.length) return '';
  const items = list.map((n) => `<li>${esc(n.name)} <span class="file">${esc(n.file)}</span> <span class="tag">${esc(n.reason)}</span></li>`);
  return `<h4>Not started</h4><ul>${items.join('')}</ul>`;
}

// The HTML report's stylesheet and script, inlined into every report (it must open offline, from a CI
// artifact, with nothing else next to it). The page's Content-Security-Policy allows exactly these two by
// hash, so nothing a scenario wrote into the report can ever run or load anything.
import { createHash } from 'node:crypto';

const MAX_DEPTH = 12;

export const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #656d76; --bg: #fff; --panel: #f6f8fa; --line: #d0d7de;
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #8c959f; --accent: #0969da; --hi: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --bg: #0d1117; --panel: #161b22; --line: #30363d;
  --pass: #3fb950; --fail: #f85149; --warn: #d29922; --skip: #6e7681; --accent: #4493f8; --hi: #3b2e00; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h4 { margin: 12px 0 4px; font-size: 13px; color: var(--muted); font-weight: 600; }
code, pre, .file, .loc, time { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.muted, .file, .loc, .kind, .dur, time { color: var(--muted); }
.run-meta { color: var(--muted); margin-bottom: 8px; }
.stats { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0; }
.stat, .badge, .tag { border-radius: 10px; padding: 1px 8px; font-size: 12px; border: 1px solid var(--line); white-space: nowrap; }
.badge.passed, .stat.passed, .step.passed .mark { color: var(--pass); }
.badge.failed, .badge.error, .stat.failed, .stat.errored, .stat.timed-out, .step.failed .mark { color: var(--fail); }
.badge.flaky, .stat.flaky, .tag.soft, .tag.ignored, .tag.attempts, .stat.skipped { color: var(--warn); }
.filters button { font: inherit; background: var(--panel); color: var(--fg); border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px; cursor: pointer; }
body[data-filter="failed"] .scenario.passed:not(.flaky) { display: none; }
.failures { margin: 8px 0 16px; padding-left: 20px; }
.failures a { color: var(--accent); }
.scenario { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0; background: var(--bg); }
.scenario > details > summary { padding: 8px 12px; cursor: pointer; background: var(--panel); border-radius: 8px; display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.scenario > details[open] > summary { border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
.sname { font-weight: 600; }
.body { padding: 8px 12px; }
.meta { display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--muted); font-size: 12px; }
.replay { display: grid; grid-template-columns: minmax(280px, 640px) minmax(200px, 1fr); gap: 8px 16px; margin: 8px 0; }
.replay video { width: 100%; background: #000; border-radius: 4px; }
.timeline { position: relative; height: 10px; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; grid-column: 1; }
.tick { position: absolute; top: -1px; width: 3px; height: 10px; background: var(--accent); cursor: pointer; }
.markers { list-style: none; margin: 0; padding: 0; grid-column: 2; grid-row: 1 / span 2; max-height: 400px; overflow: auto; }
.markers button { font: inherit; font-size: 12px; background: none; border: 0; color: var(--fg); cursor: pointer; text-align: left; padding: 1px 4px; }
.markers button:hover, .step > .line[data-seek]:hover { background: var(--panel); }
.note { color: var(--warn); font-size: 12px; }
.steps { list-style: none; margin: 4px 0; padding: 0; }
.step { padding: 2px 0 2px calc(var(--depth, 0) * 20px); border-left: 3px solid transparent; }
${Array.from({ length: MAX_DEPTH }, (_, d) => `.step[data-depth="${d + 1}"] { --depth: ${d + 1}; }`).join('\n')}
.step > .line { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; padding: 1px 4px; border-radius: 4px; }
.step > .line[data-seek] { cursor: pointer; }
.step.playing > .line { background: var(--hi); }
.step.setup .name, .step.teardown .name { color: var(--muted); }
.step.failed .mark { font-weight: 700; }
.step.skipped .mark { color: var(--skip); }
.step.ignored .mark, .step.superseded .mark { color: var(--warn); }
.offset { color: var(--accent); font-size: 12px; }
.detail { margin: 0 0 4px 28px; }
.error { border-left: 3px solid var(--fail); padding: 2px 8px; background: var(--panel); }
.step.ignored .error, .step.superseded .error { border-color: var(--warn); }
.error pre.source { opacity: .85; } .error pre.source mark { background: none; color: inherit; font-weight: bold; }
.telemetry { margin: 2px 0; padding-left: 18px; color: var(--warn); font-size: 12px; }
.reqs { color: var(--muted); }
.reqs code { margin-right: 6px; font-size: 11px; }
.artifacts { display: flex; flex-wrap: wrap; gap: 8px; margin: 4px 0; }
figure { margin: 0; }
details.error-context { flex-basis: 100%; font-size: 12px; }
details.error-context > summary { cursor: pointer; color: var(--muted); }
details.error-context pre.aria { max-height: 360px; overflow: auto; margin: 4px 0; }
figcaption { font-size: 11px; color: var(--muted); }
img.shot { max-width: 320px; max-height: 240px; border: 1px solid var(--line); border-radius: 4px; cursor: zoom-in; }
img.shot.zoom { max-width: 100%; max-height: none; cursor: zoom-out; }
table.logs { border-collapse: collapse; font-size: 12px; width: 100%; }
table.logs td { border-top: 1px solid var(--line); padding: 2px 6px; vertical-align: top; }
.attempt { margin: 8px 0; border: 1px dashed var(--line); border-radius: 6px; padding: 4px 8px; }
.attempt > summary { cursor: pointer; color: var(--muted); }
`;

export const SCRIPT = `
(() => {
  const seek = (video, ms) => {
    const go = () => { video.currentTime = ms / 1000; };
    go();
    // Before the metadata is in, the position is only a start position the load may reset: set it again then.
    if (video.readyState < 1) { video.addEventListener('loadedmetadata', go, { once: true }); video.preload = 'auto'; }
  };
  const open = (el) => { for (let d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details')) d.open = true; };
  document.addEventListener('click', (ev) => {
    const t = ev.target;
    if (!(t instanceof Element)) return;
    const shot = t.closest('img.shot');
    if (shot) { shot.classList.toggle('zoom'); return; }
    if (t.closest('a, pre, video, summary')) return;
    const el = t.closest('[data-seek]');
    const video = el && document.getElementById(el.getAttribute('data-video'));
    if (!video) return;
    seek(video, Number(el.getAttribute('data-seek')));
    open(video);
    video.scrollIntoView({ block: 'nearest' });
  });
  document.addEventListener('keydown', (ev) => {
    const t = ev.target;
    if ((ev.key === 'Enter' || ev.key === ' ') && t instanceof Element && t.matches('.line[data-seek]')) { ev.preventDefault(); t.click(); }
  });
  for (const video of document.querySelectorAll('video[id]')) {
    const id = video.id;
    const place = () => {
      if (!(video.duration > 0) || !isFinite(video.duration)) return;
      for (const tick of document.querySelectorAll('.tick[data-video="' + id + '"]')) {
        tick.style.left = Math.min(100, Number(tick.getAttribute('data-seek')) / 10 / video.duration) + '%';
      }
    };
    video.addEventListener('loadedmetadata', place);
    place();
    const rows = [...document.querySelectorAll('.line[data-video="' + id + '"]')];
    video.addEventListener('timeupdate', () => {
      const now = video.currentTime * 1000 + 1;
      let current = null;
      for (const r of rows) if (Number(r.getAttribute('data-seek')) <= now) current = r;
      for (const r of rows) r.parentElement.classList.toggle('playing', r === current);
    });
  }
  for (const b of document.querySelectorAll('[data-filter]')) {
    b.addEventListener('click', () => { document.body.setAttribute('data-filter', b.getAttribute('data-filter')); });
  }
  const reveal = () => {
    const el = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el) { open(el); el.scrollIntoView(); }
  };
  addEventListener('hashchange', reveal);
  reveal();
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

/**
 * Nothing but the report's own style and script, and images and media from data: URIs or files beside it
 * (an artifact too big to embed is linked relatively).
 */
export const CSP = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  `script-src ${sha256(SCRIPT)}`,
  "img-src data: 'self'",
  "media-src data: 'self'",
].join('; ');

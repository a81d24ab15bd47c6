// What the HTML report carries inside itself: screenshots and replay videos as data: URIs, up to a budget
// so one long recording cannot make a report too big to open or attach. Past the budget an artifact is a
// link relative to the report (it sits in the output directory, next to the artifacts) with a note.
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import type { Artifact, RunResult, ScenarioResult } from './results.js';
import { formatBytes } from './text.js';

export const DEFAULT_EMBED_BYTES = 50 * 1024 * 1024;

export interface Embedded {
  /** A data: URI, or the artifact's path relative to the report. */
  src: string;
  embedded: boolean;
  /** Why it is not embedded. */
  note?: string;
}

export interface Cue {
  start_ms: number;
  text: string;
}

export interface Embeds {
  get(path: string): Embedded;
  /** The markers of a replay's WebVTT file, or none when it is missing or unreadable. */
  cues(vttPath: string | undefined): Cue[];
  /** An error context's text (the page's accessibility tree), or undefined when it is missing. */
  text(path: string): string | undefined;
}

/** Error contexts are cut to a few hundred lines when written; this only guards against a file put there by hand. */
const TEXT_MAX_CHARS = 64 * 1024;

const MIME: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.mp4': 'video/mp4', '.webm': 'video/webm' };

/**
 * Decides, for every screenshot and video of the run, whether it is embedded. Screenshots go first (small,
 * and often the one thing that explains a failure), then videos; the last attempt before earlier ones.
 */
export async function planEmbeds(run: RunResult, outputDir: string, budgetBytes = DEFAULT_EMBED_BYTES): Promise<Embeds> {
  const attempts = (s: ScenarioResult): ScenarioResult[] => [s, ...(s.previous_attempts ?? []).flatMap(attempts)];
  const all = run.scenarios.flatMap(attempts);
  const artifacts = all.flatMap((s) => s.steps.flatMap((st) => st.artifacts));
  const videos = all.flatMap((s): Artifact[] => (s.replay ? [{ type: 'video', path: s.replay.video }] : []));
  const wanted = [...artifacts.filter((a) => a.type === 'screenshot'), ...videos, ...artifacts.filter((a) => a.type === 'video')];

  const decided = new Map<string, Embedded>();
  let left = budgetBytes;
  for (const a of wanted) {
    if (decided.has(a.path)) continue;
    const file = resolve(outputDir, a.path);
    const mime = MIME[extname(a.path).toLowerCase()];
    const size = await stat(file).then((s) => s.size, () => undefined);
    if (size === undefined) decided.set(a.path, { src: href(a.path), embedded: false, note: 'the file is missing' });
    else if (!mime) decided.set(a.path, { src: href(a.path), embedded: false });
    else if (size > left) {
      const note = `not embedded: ${formatBytes(size)} would pass the report's ${formatBytes(budgetBytes)} limit for embedded files; it is next to the report at ${a.path}`;
      decided.set(a.path, { src: href(a.path), embedded: false, note });
    } else {
      left -= size;
      decided.set(a.path, { src: `data:${mime};base64,${(await readFile(file)).toString('base64')}`, embedded: true });
    }
  }

  const vtts = new Map<string, Cue[]>();
  for (const s of all) {
    if (!s.replay?.vtt || vtts.has(s.replay.vtt)) continue;
    const text = await readFile(resolve(outputDir, s.replay.vtt), 'utf8').catch(() => '');
    vtts.set(s.replay.vtt, parseVtt(text));
  }
  const texts = new Map<string, string>();
  for (const a of artifacts) {
    if (a.type !== 'error_context' || texts.has(a.path)) continue;
    const text = await readFile(resolve(outputDir, a.path), 'utf8').catch(() => undefined);
    if (text !== undefined) texts.set(a.path, text.length > TEXT_MAX_CHARS ? `${text.slice(0, TEXT_MAX_CHARS)}\n…` : text);
  }
  return {
    get: (path) => decided.get(path) ?? { src: href(path), embedded: false },
    cues: (vtt) => (vtt ? (vtts.get(vtt) ?? []) : []),
    text: (path) => texts.get(path),
  };
}

/** A path relative to the output directory as a relative URL (each segment percent-encoded). */
export function href(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

const TIMING = /^(?:(\d+):)?(\d{2}):(\d{2})\.(\d{3})\s+-->/;

/** The cues of a WebVTT file: each cue's start and its text (a marker's name). */
export function parseVtt(text: string): Cue[] {
  const cues: Cue[] = [];
  const blocks = text.replace(/\r\n?/g, '\n').split(/\n{2,}/);
  for (const block of blocks) {
    const lines = block.split('\n');
    const at = lines.findIndex((l) => TIMING.test(l));
    if (at < 0) continue;
    const [, h, m, s, ms] = TIMING.exec(lines[at]!)!;
    const start = ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms);
    cues.push({ start_ms: start, text: unescapeCue(lines.slice(at + 1).join('\n').trim()) });
  }
  return cues;
}

/** Cue text is HTML-like: the few entities a writer escapes with (the report escapes it again itself). */
function unescapeCue(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  return text.replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, n: string) => named[n]!);
}

// Which of the compiled scenarios a run executes: --grep/--grep-invert, --tag/--exclude-tag, --last-failed
// and --shard, applied in that order so every shard of a CI matrix splits the same filtered list.
import { relative, resolve, sep } from 'node:path';
import type { Plan } from '../../src/scenario/index.js';

export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
}

export interface Selection {
  /** A scenario is kept when any pattern matches its name or its file path. */
  grep?: RegExp[];
  /** A scenario is dropped when any pattern matches its name or its file path. */
  grepInvert?: RegExp[];
  /** A scenario is kept when it has any of these tags. */
  tags?: string[];
  /** A scenario is dropped when it has any of these tags. */
  excludeTags?: string[];
  /** Only the scenarios this accepts (the failures of the last run). */
  only?: (plan: Plan) => boolean;
  shard?: Shard;
}

export interface Selected<T> {
  items: T[];
  /** How many were left after the filters, before sharding. */
  matched: number;
}

/** `i/n` with 1 <= i <= n. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const total = Number(m?.[2]);
  if (!m || total < 1 || index < 1 || index > total) {
    throw new Error(`--shard expects i/n with 1 <= i <= n (e.g. 2/4), got '${text}'`);
  }
  return { index, total };
}

export function parsePattern(text: string, flag: string): RegExp {
  try {
    return new RegExp(text);
  } catch (err) {
    throw new Error(`${flag}: invalid regular expression '${text}': ${(err as Error).message}`);
  }
}

export function selectScenarios<T extends { plan: Plan }>(items: T[], sel: Selection, cwd = process.cwd()): Selected<T> {
  const matches = (patterns: RegExp[], plan: Plan) => patterns.some((re) => re.test(plan.scenario.name) || re.test(plan.scenario.file));
  const hasAny = (tags: string[], plan: Plan) => tags.some((t) => plan.scenario.tags.includes(t));
  const filtered = items.filter(({ plan }) => {
    if (sel.grep?.length && !matches(sel.grep, plan)) return false;
    if (sel.grepInvert?.length && matches(sel.grepInvert, plan)) return false;
    if (sel.tags?.length && !hasAny(sel.tags, plan)) return false;
    if (sel.excludeTags?.length && hasAny(sel.excludeTags, plan)) return false;
    return !sel.only || sel.only(plan);
  });
  if (!sel.shard) return { items: filtered, matched: filtered.length };
  const mine = new Set(shardOf(filtered, sel.shard, cwd));
  return { items: filtered.filter((item) => mine.has(item)), matched: filtered.length };
}

/**
 * The shard's part of `items`: sorted by file (relative to `cwd`, with `/`) then name, so every machine of a
 * CI matrix agrees whatever order the paths were given in, then cut into `total` contiguous slices whose
 * sizes differ by at most one (the first `length % total` slices take one more).
 */
export function shardOf<T extends { plan: Plan }>(items: T[], shard: Shard, cwd = process.cwd()): T[] {
  const key = (plan: Plan) => [relative(cwd, resolve(cwd, plan.scenario.file)).split(sep).join('/'), plan.scenario.name] as const;
  const sorted = [...items].sort((a, b) => {
    const [fa, na] = key(a.plan);
    const [fb, nb] = key(b.plan);
    // Code-unit order, not locale order: shards must not depend on the machine's locale.
    return fa < fb ? -1 : fa > fb ? 1 : na < nb ? -1 : na > nb ? 1 : 0;
  });
  const base = Math.floor(sorted.length / shard.total);
  const extra = sorted.length % shard.total;
  const start = (shard.index - 1) * base + Math.min(shard.index - 1, extra);
  const size = base + (shard.index <= extra ? 1 : 0);
  return sorted.slice(start, start + size);
}

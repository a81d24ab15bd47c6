// `bcs monitor deploy DIR`: the suite folder's scenario files made into checks, each with its settings resolved
// from the config's `monitors:` section (defaults, then the groups a file is in, then its own entry), as the
// one manifest the service takes beside the folder's zip. Nothing secret goes in: secrets are named.
import { posix, relative, resolve, sep } from 'node:path';
import type { MonitorCheckSpec, MonitorManifest } from '../../../src/api/schemas/monitors.js';
import type { SuiteConfig } from '../../suite/config.js';
import { findScenarioFiles, stripScenarioExtension } from '../../suite/files.js';
import { spanSeconds, type CheckSettings, type MonitorsConfig } from '../../suite/monitors-config.js';
import { UsageError } from '../usage-error.js';

/** A check with no schedule anywhere in its cascade runs this often. */
export const DEFAULT_EVERY = '10m';

/** `config` was loaded with `dir` as the working directory, so its paths are relative to it. */
export async function buildManifest(dir: string, config: SuiteConfig | undefined, suiteFlag: string | undefined): Promise<MonitorManifest> {
  const mon: MonitorsConfig = config?.monitors ?? {};
  const base = config?.dir ?? dir;
  // Paths in the config are relative to its folder; the manifest's are relative to the deployed folder.
  const inDir = (p: string) => toPosix(relative(dir, resolve(base, p))) || '.';
  const listed = mon.paths === undefined ? undefined : typeof mon.paths === 'string' ? [mon.paths] : mon.paths;
  const paths = listed?.map(inDir) ?? config?.paths?.map((p) => toPosix(relative(dir, resolve(dir, p)))) ?? ['.'];
  for (const p of paths) if (p === '..' || p.startsWith('../')) throw new UsageError(`monitors.paths: '${p}' is outside the deployed folder ${dir}`);
  const hooks = new Set([...(config?.before ?? []), ...(config?.after ?? [])].map((p) => toPosix(relative(dir, resolve(dir, p)))));
  let files: string[];
  try {
    files = (await findScenarioFiles(paths, dir)).map((f) => toPosix(relative(dir, resolve(dir, f)))).filter((f) => !hooks.has(f));
  } catch (err) {
    throw new UsageError(`monitors: ${(err as Error).message}`);
  }
  if (!files.length) throw new UsageError(`monitors: no scenario files under ${paths.join(', ')} in ${dir}`);
  const own = new Map(Object.entries(mon.checks ?? {}).map(([file, s]) => [inDir(file), s]));
  for (const file of own.keys()) if (!files.includes(file)) throw new UsageError(`monitors.checks: '${file}' is not one of the suite's scenario files`);
  const groups = (mon.groups ?? []).map((g) => ({ ...g, paths: g.paths.map(inDir) }));
  const checks = files.map((file) => {
    const inGroups = groups.filter((g) => g.paths.some((p) => p === '.' || file === p || file.startsWith(`${p}/`)));
    const mine = own.get(file);
    const merged = [mon.defaults ?? {}, ...inGroups, mine ?? {}].reduce<CheckSettings>((acc, s) => cascade(acc, s), {});
    return checkSpec(mine?.name ?? stripScenarioExtension(file), file, inGroups.at(-1)?.name, merged);
  });
  return {
    suite: suiteFlag ?? mon.suite ?? config?.reportTo?.suite ?? posix.basename(toPosix(dir)),
    checks,
    ...(mon.channels ? { channels: channels(mon.channels) } : {}),
    ...(mon.secrets ? { secrets: mon.secrets } : {}),
    ...(mon.maintenance ? { maintenance: mon.maintenance.map(maintenance) } : {}),
  } as MonitorManifest;
}

/** A later level's settings over an earlier one's; a schedule is replaced whole (an `every` over a `cron`). */
function cascade(acc: CheckSettings, next: CheckSettings): CheckSettings {
  const out: CheckSettings = { ...acc, ...next };
  if (next.every !== undefined) delete out.cron;
  if (next.cron !== undefined) delete out.every;
  if (acc.alert && next.alert) out.alert = { ...acc.alert, ...next.alert };
  return out;
}

function checkSpec(name: string, file: string, group: string | undefined, s: CheckSettings): MonitorCheckSpec {
  const at = (what: string, text: string) => {
    try {
      return spanSeconds(text);
    } catch (err) {
      throw new UsageError(`monitors: check '${name}': ${what}: ${(err as Error).message}`);
    }
  };
  const schedule = s.cron !== undefined ? { cron: s.cron, ...(s.timezone ? { timezone: s.timezone } : {}) } : { every_seconds: at('every', s.every ?? DEFAULT_EVERY) };
  const r = s.retries;
  const a = s.alert;
  return {
    name,
    file,
    ...(group ? { group } : {}),
    schedule,
    ...(s.timeout ? { timeout_seconds: at('timeout', s.timeout) } : {}),
    ...(r
      ? {
          retries: {
            count: r.count,
            ...(r.strategy ? { strategy: r.strategy } : {}),
            ...(r.delay ? { delay_seconds: at('retries.delay', r.delay) } : {}),
            ...(r.max_delay ? { max_delay_seconds: at('retries.max_delay', r.max_delay) } : {}),
          },
        }
      : {}),
    ...(a
      ? {
          alert: {
            ...(a.after_failures !== undefined ? { after_failures: a.after_failures } : {}),
            ...(a.after ? { after_minutes: Math.max(1, Math.ceil(at('alert.after', a.after) / 60)) } : {}),
            ...(a.on_recovery !== undefined ? { on_recovery: a.on_recovery } : {}),
            ...(a.remind_every !== undefined ? { remind_every: a.remind_every } : {}),
            ...(a.degraded_after ? { degraded_ms: at('alert.degraded_after', a.degraded_after) * 1000 } : {}),
          },
        }
      : {}),
    ...(s.channels?.length ? { channels: s.channels } : {}),
    ...(s.keep_on_failure ? { keep_on_failure_seconds: at('keep_on_failure', s.keep_on_failure) } : {}),
    ...(s.tags?.length ? { tags: s.tags } : {}),
    ...(s.paused ? { paused: true } : {}),
  };
}

function channels(config: Record<string, Record<string, unknown>>): NonNullable<MonitorManifest['channels']> {
  return Object.fromEntries(
    Object.entries(config).map(([name, c]) => {
      const { to, ...rest } = c;
      return [name, { ...rest, ...(to !== undefined ? { to: typeof to === 'string' ? [to] : to } : {}) }];
    }),
  ) as NonNullable<MonitorManifest['channels']>;
}

function maintenance(w: NonNullable<MonitorsConfig['maintenance']>[number]): NonNullable<MonitorManifest['maintenance']>[number] {
  const checks = w.checks ? { checks: w.checks } : {};
  if (w.cron !== undefined) {
    if (!w.duration) throw new UsageError(`monitors.maintenance: a window with cron '${w.cron}' needs a duration (e.g. duration: 2h)`);
    return { cron: w.cron, ...(w.timezone ? { timezone: w.timezone } : {}), duration_minutes: Math.max(1, Math.ceil(spanSeconds(w.duration) / 60)), ...checks };
  }
  if (!w.start || !w.end) throw new UsageError('monitors.maintenance: a window needs start and end (ISO times with an offset), or cron and duration');
  return { start: w.start, end: w.end, ...checks };
}

const toPosix = (p: string) => p.split(sep).join('/');

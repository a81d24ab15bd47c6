// Monitors as the routes see them: deploy a suite (its zip and manifest), list and read checks with their
// state and recent runs, pause, resume and trigger them, delete a suite, list alerts. Everything is addressed
// within the caller's project. Running them is the scheduler's (scheduler.ts).
import type { MonitorCheckSpec, MonitorCheckState, MonitorDeployment, MonitorManifest, MonitorStatus, MonitorAlertRecord } from '../../../api/schemas/monitors.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { lookUpByIdInProject } from '../find-in-project.js';
import { newId } from '../../ids.js';
import type { CheckRow, CheckRunRow, MonitorsRepo, SuiteRow } from '../../store/monitors-repo.js';
import type { SuiteBundles } from './bundle.js';
import { HEALTHY } from './policy.js';
import { checkCron, nextOccurrence } from './timing.js';

export interface MonitorsDeps {
  repo: MonitorsRepo;
  bundles: SuiteBundles;
  now: () => Date;
  /** Why this service cannot run checks, or null (a deploy is refused rather than kept and never run). */
  unavailableReason: () => string | null;
  /** Asks the scheduler to look at due checks now (a trigger, a resume, a deploy). */
  wake: () => void;
}

export class Monitors {
  constructor(private readonly deps: MonitorsDeps) {}

  async deploy(projectId: string | null, manifest: MonitorManifest, zipPath: string, field: string): Promise<MonitorDeployment> {
    const reason = this.deps.unavailableReason();
    if (reason) throw conflict(reason);
    checkManifest(manifest, `${field}.manifest`);
    const previous = await this.deps.repo.getSuite(projectId, manifest.suite);
    const suiteId = previous?.id ?? newId();
    const version = (previous?.version ?? 0) + 1;
    const bundle = await this.deps.bundles.unpack(zipPath, suiteId, version, `${field}.file`);
    try {
      for (const [i, c] of manifest.checks.entries()) {
        if (!(await this.deps.bundles.hasFile(bundle, c.file))) throw invalidField(`${field}.manifest.checks[${i}].file`, `'${c.file}' is not a file of the uploaded folder`);
      }
      const { checks, suite: _s, ...settings } = manifest;
      const now = this.deps.now();
      const suite: SuiteRow = { id: suiteId, project_id: projectId, name: manifest.suite, version, settings, bundle, deployed_at: now.toISOString() };
      const firstDue = (spec: MonitorCheckSpec, prev: CheckRow | undefined) => {
        // An unchanged schedule keeps its next run; a new or changed one starts now, so a deploy is checked at once.
        if (prev && JSON.stringify(prev.spec.schedule) === JSON.stringify(spec.schedule) && prev.next_run_at) return prev.next_run_at;
        return now.toISOString();
      };
      const { removed, previousBundle } = await this.deps.repo.deploy(suite, checks.map((spec) => ({ id: newId(), spec })), firstDue, HEALTHY);
      // The version before stays for a check still running from it; older ones go.
      await this.deps.bundles.prune(suiteId, [bundle, ...(previousBundle ? [previousBundle] : [])]);
      this.deps.wake();
      return { suite: suite.name, version, deployed_at: suite.deployed_at, checks: await this.list(projectId, { suite: suite.name, recent: 0 }), removed };
    } catch (err) {
      await this.deps.bundles.prune(suiteId, previous ? [previous.bundle] : []);
      throw err;
    }
  }

  async deleteSuite(projectId: string | null, name: string): Promise<void> {
    const suite = await this.deps.repo.getSuite(projectId, name);
    if (!suite) throw notFound('monitor suite', name);
    if ((await this.deps.repo.listChecks(projectId, name)).some((c) => c.running_since)) throw conflict(`suite '${name}' has a check running; pause its checks and try again once it ends`);
    await this.deps.repo.deleteSuite(suite.id, projectId, name);
    await this.deps.bundles.prune(suite.id);
  }

  async list(projectId: string | null, q: { suite?: string; status?: MonitorStatus; recent: number }): Promise<MonitorCheckState[]> {
    const rows = (await this.deps.repo.listChecks(projectId, q.suite)).filter((c) => q.status === undefined || c.health.status === q.status);
    const recent = await this.deps.repo.recentRuns(rows.map((r) => r.id), q.recent);
    return rows.map((r) => present(r, recent.get(r.id) ?? []));
  }

  async get(projectId: string | null, id: string, recent = 20): Promise<MonitorCheckState> {
    const row = await this.find(projectId, id);
    return present(row, (await this.deps.repo.recentRuns([row.id], recent)).get(row.id) ?? []);
  }

  async pause(projectId: string | null, id: string): Promise<MonitorCheckState> {
    const row = await this.find(projectId, id);
    if (!row.paused) await this.deps.repo.setPaused(row.id, true, null);
    return this.get(projectId, id);
  }

  async resume(projectId: string | null, id: string): Promise<MonitorCheckState> {
    const row = await this.find(projectId, id);
    if (row.paused) {
      const next = nextOccurrence(row.spec.schedule, this.deps.now());
      await this.deps.repo.setPaused(row.id, false, next?.toISOString() ?? null);
    }
    return this.get(projectId, id);
  }

  /** Runs the check now, outside its schedule (its next regular run stays). */
  async trigger(projectId: string | null, id: string): Promise<MonitorCheckState> {
    const row = await this.find(projectId, id);
    if (row.paused) throw conflict(`check '${row.name}' is paused; resume it first`);
    if (!(await this.deps.repo.trigger(row.id, this.deps.now().toISOString()))) throw conflict(`check '${row.name}' is running now`);
    this.deps.wake();
    return this.get(projectId, id);
  }

  async alerts(projectId: string | null, checkId: string | undefined, limit: number): Promise<MonitorAlertRecord[]> {
    if (checkId !== undefined) await this.find(projectId, checkId);
    return (await this.deps.repo.listAlerts(projectId, checkId, limit)).map((a) => ({
      id: a.id,
      check_id: a.check_id,
      kind: a.kind as MonitorAlertRecord['kind'],
      at: a.at,
      muted: a.muted,
      run_id: a.run_id,
      deliveries: a.deliveries,
    }));
  }

  private find(projectId: string | null, id: string): Promise<CheckRow> {
    return lookUpByIdInProject({ get: (checkId) => this.deps.repo.getCheck(checkId) }, projectId, id, 'check');
  }
}

/** What the schema cannot say: unique names, channels and secrets that exist, schedules croner takes. */
function checkManifest(m: MonitorManifest, field: string): void {
  const names = new Set<string>();
  const channels = m.channels ?? {};
  const secrets = m.secrets ?? {};
  const cron = (pattern: string, timezone: string | undefined, at: string) => {
    try {
      checkCron(pattern, timezone);
    } catch (err) {
      throw invalidField(at, `is not a schedule croner takes: ${(err as Error).message}`);
    }
  };
  for (const [i, c] of m.checks.entries()) {
    const at = `${field}.checks[${i}]`;
    if (names.has(c.name)) throw invalidField(`${at}.name`, `'${c.name}' is given to two checks`);
    names.add(c.name);
    if ('cron' in c.schedule) cron(c.schedule.cron, c.schedule.timezone, `${at}.schedule.cron`);
    for (const ch of c.channels ?? []) if (!channels[ch]) throw invalidField(`${at}.channels`, `channel '${ch}' is not in the manifest's channels`);
    const r = c.retries;
    if (r?.max_delay_seconds !== undefined && r.delay_seconds !== undefined && r.max_delay_seconds < r.delay_seconds) {
      throw invalidField(`${at}.retries.max_delay_seconds`, 'must be at least delay_seconds');
    }
  }
  for (const [name, ch] of Object.entries(channels)) {
    for (const ref of secretRefs(ch)) if (!secrets[ref]) throw invalidField(`${field}.channels.${name}`, `secret '${ref}' is not in the manifest's secrets`);
  }
  for (const [i, w] of (m.maintenance ?? []).entries()) {
    if ('cron' in w) cron(w.cron, w.timezone, `${field}.maintenance[${i}].cron`);
    else if (Date.parse(w.end) <= Date.parse(w.start)) throw invalidField(`${field}.maintenance[${i}].end`, 'must be after start');
    for (const c of w.checks ?? []) if (!names.has(c)) throw invalidField(`${field}.maintenance[${i}].checks`, `check '${c}' is not in the manifest`);
  }
}

function secretRefs(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  if ('secret' in value && typeof (value as { secret: unknown }).secret === 'string') return [(value as { secret: string }).secret];
  return Object.values(value).flatMap(secretRefs);
}

function present(row: CheckRow, recent: CheckRunRow[]): MonitorCheckState {
  const s = row.spec;
  return {
    id: row.id,
    suite: row.suite,
    name: row.name,
    file: s.file,
    group: s.group ?? null,
    schedule: s.schedule,
    timeout_seconds: s.timeout_seconds ?? 300,
    retries: { ...(s.retries ?? { count: 0 }), strategy: s.retries?.strategy ?? 'fixed' },
    alert: s.alert ?? {},
    channels: s.channels ?? [],
    keep_on_failure_seconds: s.keep_on_failure_seconds ?? 0,
    tags: s.tags ?? [],
    paused: row.paused,
    status: row.health.status,
    running: row.running_since !== null,
    consecutive_failures: row.health.consecutive_failures,
    failing_since: row.health.failing_since,
    last_run_at: row.last_run_at,
    last_run_id: row.last_run_id,
    last_duration_ms: row.last_duration_ms,
    next_run_at: row.paused ? null : row.due_at,
    recent: recent.map((r) => ({
      run_id: r.run_id,
      status: r.status as 'passed',
      started_at: r.started_at,
      duration_ms: r.duration_ms,
      attempt: r.attempt,
      ...(r.message ? { message: r.message } : {}),
    })),
  };
}

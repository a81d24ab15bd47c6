// `bcs monitor deploy|status|pause|resume|trigger|alerts|delete`: suites whose checks the service runs on its
// own schedules and browsers (/monitors). Deploy zips the folder (without node_modules, .git and run output)
// and sends it with the manifest built from its config; the others read and steer the deployed checks.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { MonitorAlertRecord, MonitorCheckState, MonitorDeployment } from '../../../src/api/schemas/monitors.js';
import { loadConfig } from '../../suite/config.js';
import { zipFolder } from '../admin/extensions.js';
import { adminAction, adminFlags, segment, table, when, type Admin, type Finish } from '../admin/output.js';
import { UsageError } from '../usage-error.js';
import { buildManifest } from './manifest.js';

const NOT_UPLOADED = ['node_modules', '.git', 'bcs-results', 'bcs-history', 'test-results'];

export function registerMonitor(program: Command, finish: Finish): void {
  const monitor = program.command('monitor').description("deploy suites whose checks the service runs on schedules, with retries and alerts; see and steer them");

  adminFlags(
    monitor
      .command('deploy')
      .description("deploy a suite folder: every scenario file becomes a check, with the schedule, retries and alerts its config's `monitors:` section gives")
      .argument('[dir]', 'the suite folder (its bcs.config.yaml is read)', '.'),
  )
    .option('--suite <name>', 'the name the suite is deployed as (default: monitors.suite, report_to.suite, else the folder name)')
    .option('--config <file>', 'the config, relative to the folder (default: its bcs.config.yaml)')
    .option('--dry-run', 'print the manifest that would be deployed, and deploy nothing')
    .action(
      adminAction(finish, async (admin, dirArg: string, o: { suite?: string; config?: string; dryRun?: boolean }) => {
        const dir = resolve(dirArg);
        const config = await loadConfig(o.config, dir);
        const manifest = await buildManifest(dir, config, o.suite);
        if (o.dryRun) {
          process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
          return;
        }
        const zip = await zipFolder(dir, NOT_UPLOADED);
        const form = new FormData();
        form.append('manifest', JSON.stringify(manifest));
        form.append('file', new Blob([zip], { type: 'application/zip' }), `${manifest.suite}.zip`);
        const deployed = await admin.call<MonitorDeployment>('POST', '/monitors/deployments', { body: form });
        admin.print(deployed, (d) => [
          `suite '${d.suite}' version ${d.version}: ${d.checks.length} check${d.checks.length === 1 ? '' : 's'} (${zip.byteLength} bytes uploaded)`,
          ...checkTable(d.checks),
          ...(d.removed.length ? [`removed: ${d.removed.join(', ')}`] : []),
        ]);
      }),
    );

  adminFlags(monitor.command('status').description("every check: its status, last and next run, and its latest runs at a glance (newest first: ✓ passed, ✗ failed, ! error, ⏱ timed out)"))
    .option('--suite <name>', 'only this suite')
    .option('--status <status>', 'only checks in this status (pending, passing, failing, degraded)')
    .action(
      adminAction(finish, async (admin, o: { suite?: string; status?: string }) => {
        const checks = await admin.call<MonitorCheckState[]>('GET', '/monitors/checks', { query: { suite: o.suite, status: o.status, recent: 10 } });
        admin.print(checks, (list) => (list.length ? checkTable(list) : 'no checks deployed'));
      }),
    );

  const steer = (verb: 'pause' | 'resume' | 'trigger', description: string, said: (c: MonitorCheckState) => string) =>
    adminFlags(monitor.command(verb).description(description).argument('<check>', 'the check: its id, its name, or suite/name when names repeat across suites')).action(
      adminAction(finish, async (admin, which: string) => {
        const check = await findCheck(admin, which);
        const after = await admin.call<MonitorCheckState>('POST', `/monitors/checks/${segment(check.id)}/${verb}`);
        admin.print(after, said);
      }),
    );
  steer('pause', 'stop starting runs of a check (a run under way finishes)', (c) => `${c.suite}/${c.name} paused`);
  steer('resume', 'start a paused check again, at its next scheduled time', (c) => `${c.suite}/${c.name} resumed; next run ${when(c.next_run_at)}`);
  steer('trigger', 'run a check now, outside its schedule', (c) => `${c.suite}/${c.name} triggered; see it with \`bcs monitor status\``);

  adminFlags(monitor.command('alerts').description('alerts raised, newest first, and how each channel took them'))
    .option('--check <check>', 'only this check (id, name or suite/name)')
    .option('--limit <n>', 'at most this many', '50')
    .action(
      adminAction(finish, async (admin, o: { check?: string; limit: string }) => {
        const check = o.check ? await findCheck(admin, o.check) : undefined;
        const alerts = await admin.call<MonitorAlertRecord[]>('GET', '/monitors/alerts', { query: { check_id: check?.id, limit: Number(o.limit) } });
        admin.print(alerts, (list) =>
          table(
            ['AT', 'KIND', 'CHECK', 'DELIVERIES'],
            list.map((a) => [a.at, a.muted ? `${a.kind} (muted)` : a.kind, a.check_id, a.deliveries.map((d) => `${d.channel}:${d.ok ? 'ok' : `failed (${d.error})`}`).join(', ')]),
          ),
        );
      }),
    );

  adminFlags(monitor.command('delete').description("delete a deployed suite and its checks (its runs stay in the service's history)").argument('<suite>', 'the suite name')).action(
    adminAction(finish, async (admin, suite: string) => {
      await admin.call('DELETE', `/monitors/suites/${segment(suite)}`);
      admin.print({ deleted: suite }, () => `suite '${suite}' deleted`);
    }),
  );
}

async function findCheck(admin: Admin, which: string): Promise<MonitorCheckState> {
  const checks = await admin.call<MonitorCheckState[]>('GET', '/monitors/checks', { query: { recent: 0 } });
  const found = checks.filter((c) => c.id === which || c.name === which || `${c.suite}/${c.name}` === which);
  if (found.length === 1) return found[0]!;
  if (!found.length) throw new UsageError(`no check '${which}' (see \`bcs monitor status\`)`);
  throw new UsageError(`'${which}' names ${found.length} checks (${found.map((c) => `${c.suite}/${c.name}`).join(', ')}): give suite/name or the id`);
}

const MARK: Record<string, string> = { passed: '✓', failed: '✗', error: '!', timed_out: '⏱' };

function checkTable(checks: MonitorCheckState[]): string[] {
  return table(
    ['CHECK', 'STATUS', 'SCHEDULE', 'LAST RUN', 'NEXT RUN', 'RECENT'],
    checks.map((c) => [
      `${c.suite}/${c.name}`,
      c.paused ? `${c.status} (paused)` : c.running ? `${c.status} (running)` : c.status,
      'cron' in c.schedule ? c.schedule.cron : `every ${c.schedule.every_seconds}s`,
      c.last_run_at ? when(c.last_run_at) : '-',
      c.next_run_at ? when(c.next_run_at) : '-',
      c.recent.map((r) => MARK[r.status] ?? '?').join(''),
    ]),
  );
}

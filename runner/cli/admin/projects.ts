// `bcs projects`: the organisation's projects (`/org/projects`) and their limits. Projects are named by
// id or name everywhere.
import type { Command } from 'commander';
import type { Project, ProjectLimits } from '../../../src/api/index.js';
import { UsageError } from '../usage-error.js';
import { adminAction, adminFlags, segment, table, type Admin, type Finish, when, wholeNumber } from './output.js';

const ORG = { project: false };

export function registerProjects(program: Command, finish: Finish): void {
  const projects = program.command('projects').description('manage projects (needs an organization-wide key)');
  const path = (id: string) => `/org/projects/${segment(id)}`;
  const show = (admin: Admin, project: Project, verb: string) =>
    admin.print(project, (p) => `${verb} project ${p.name} (id ${p.id}, ${p.status})`);

  adminFlags(projects.command('list').description('list projects'), ORG).action(
    adminAction(finish, async (admin) => {
      const rows = await admin.list<Project>('/org/projects');
      admin.print(rows, (list) => table(['ID', 'NAME', 'STATUS', 'CREATED'], list.map((p) => [p.id, p.name, p.status, when(p.created_at)])));
    }),
  );

  adminFlags(projects.command('create').description('create a project').argument('<name>', 'its name'), ORG).action(
    adminAction(finish, async (admin, name: string) => show(admin, await admin.call<Project>('POST', '/org/projects', { body: { name } }), 'created')),
  );

  adminFlags(projects.command('rename').description('rename a project').argument('<id>', 'id or name').argument('<name>', 'its new name'), ORG).action(
    adminAction(finish, async (admin, id: string, name: string) => show(admin, await admin.call<Project>('PATCH', path(id), { body: { name } }), 'renamed')),
  );

  adminFlags(projects.command('archive').description('archive a project: it can then be read and emptied, not changed').argument('<id>', 'id or name'), ORG).action(
    adminAction(finish, async (admin, id: string) => show(admin, await admin.call<Project>('PATCH', path(id), { body: { status: 'archived' } }), 'archived')),
  );

  adminFlags(projects.command('unarchive').description('make an archived project active again').argument('<id>', 'id or name'), ORG).action(
    adminAction(finish, async (admin, id: string) => show(admin, await admin.call<Project>('PATCH', path(id), { body: { status: 'active' } }), 'unarchived')),
  );

  adminFlags(projects.command('delete').description('delete an empty project').argument('<id>', 'id or name'), ORG).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', path(id));
      admin.print({ id, deleted: true }, () => `deleted project ${id}`);
    }),
  );

  adminFlags(
    projects.command('limits').description("show a project's limits, or change them with --max-concurrent").argument('<id>', 'id or name'),
    ORG,
  )
    .option('--max-concurrent <n>', 'browsers the project may run at once; "none" removes the cap')
    .action(
      adminAction(finish, async (admin, id: string, o: { maxConcurrent?: string }) => {
        const limits =
          o.maxConcurrent === undefined
            ? await admin.call<ProjectLimits>('GET', `${path(id)}/limits`)
            : await admin.call<ProjectLimits>('PATCH', `${path(id)}/limits`, { body: { max_concurrent_sessions: cap(o.maxConcurrent) } });
        admin.print(limits, (l) => `max concurrent browsers: ${l.max_concurrent_sessions ?? 'no project cap (the organization limit applies)'}`);
      }),
    );
}

function cap(value: string): number | null {
  if (value === 'none') return null;
  if (!/^\d+$/.test(value)) throw new UsageError(`--max-concurrent must be a whole number or "none", got '${value}'`);
  return wholeNumber(value, '--max-concurrent', 0, 1_000_000) || null;
}

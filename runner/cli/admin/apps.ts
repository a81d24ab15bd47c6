// `bcs deploy`, `bcs apps` and `bcs deployments`: app code deployed to the service (`/deployments`) and the
// app versions it registered (`/apps`). A folder is zipped in memory without its `node_modules` and `.git`
// (the service installs from the lockfile); a .zip is sent as it is. `deploy` follows the build's events
// to its end: exit 0 once the deployment is running, 1 when it failed.
import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { AppAction, AppVersion, Deployment } from '../../../src/api/schemas/apps.js';
import { UsageError } from '../usage-error.js';
import { zipFolder } from './extensions.js';
import { followEvents } from './follow.js';
import { adminAction, adminFlags, segment, table, type Admin, type Finish, when } from './output.js';

/** Folders never uploaded from an app folder. */
const NOT_UPLOADED = ['node_modules', '.git'];
/** The service's rule for environment variable names. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;
/** Values shorter than this, taken from the environment, are not treated as secrets to hide in messages. */
const SECRET_MIN_LENGTH = 4;
const SETTLED = new Set(['running', 'failed', 'stopped']);

interface DeployFlags {
  version?: string;
  entrypoint?: string;
  env?: string[];
  force?: boolean;
  follow: boolean;
}

interface SummaryFrame {
  event: 'app_version_summary';
  app_name: string;
  version: string;
  actions: AppAction[];
}

export function registerApps(program: Command, finish: Finish): void {
  adminFlags(
    program
      .command('deploy')
      .description('deploy an app (a folder, zipped for you without node_modules and .git, or a .zip) and follow its build')
      .argument('<dir|zip>', 'the app folder, or a .zip of it'),
  )
    .option('--version <version>', "the version label (default: the service's, `latest`)")
    .option('--entrypoint <path>', 'the entrypoint, relative to the app folder (default: index.ts, index.js, src/index.ts, ...)')
    .option(
      '--env <NAME=VALUE|NAME>',
      "an environment variable of the app (repeatable); NAME alone takes the value from this shell's environment, keeping it off the command line",
      (v: string, l: string[] = []) => [...l, v],
    )
    .option('--force', 'replace a running deployment of the same app and version')
    .option('--no-follow', 'print the queued deployment and return without following its build')
    .action(
      adminAction(finish, async (admin, path: string, o: DeployFlags) => {
        const env = envVars(o.env ?? [], admin.secrets);
        const { bytes, name } = await appArchive(path, o.entrypoint);
        const form = new FormData();
        form.append('file', new Blob([bytes], { type: 'application/zip' }), `${name}.zip`);
        if (o.entrypoint !== undefined) form.append('entrypoint_rel_path', o.entrypoint);
        if (o.version !== undefined) form.append('version', o.version);
        for (const [key, value] of Object.entries(env)) form.append(`env_vars[${key}]`, value);
        if (o.force) form.append('force', 'true');
        const queued = await admin.call<Deployment>('POST', '/deployments', { body: form });
        if (!o.follow) {
          admin.print(queued, (d) => `deployment ${d.id} queued (${bytes.byteLength} bytes uploaded); see it with \`bcs deployments list\``);
          return;
        }
        return followDeployment(admin, queued, bytes.byteLength);
      }),
    );

  const apps = program.command('apps').description('list deployed apps and their actions');
  adminFlags(apps.command('list').description('list app versions that running deployments registered, with their actions'))
    .option('--app <name>', 'only this app')
    .action(
      adminAction(finish, async (admin, o: { app?: string }) => {
        const rows = await admin.list<AppVersion>('/apps', o.app ? { app_name: o.app } : undefined);
        admin.print(rows, (list) =>
          table(['APP', 'VERSION', 'ACTIONS', 'DEPLOYMENT'], list.map((a) => [a.app_name, a.version, a.actions.map((x) => x.name).join(','), a.deployment])),
        );
      }),
    );

  const deployments = program.command('deployments').description('list and stop deployments');
  adminFlags(deployments.command('list').description('list deployments, newest first'))
    .option('--app <name>', 'only deployments of this app')
    .action(
      adminAction(finish, async (admin, o: { app?: string }) => {
        const rows = await admin.list<Deployment>('/deployments', o.app ? { app_name: o.app } : undefined);
        admin.print(rows, (list) => table(['ID', 'STATUS', 'APP', 'VERSION', 'CREATED'], list.map((d) => [d.id, d.status, d.app_name, d.version, when(d.created_at)])));
      }),
    );

  adminFlags(deployments.command('stop').description('stop a deployment: its app version can no longer be invoked').argument('<id>', 'the deployment')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', `/deployments/${segment(id)}`);
      admin.print({ id, stopped: true }, () => `stopped deployment ${id}`);
    }),
  );
}

/**
 * Prints the build's log lines and the app version it registered, then the outcome: 0 when the deployment
 * runs, 1 when it failed or was stopped. With --json the log goes to stderr and stdout gets the deployment.
 */
async function followDeployment(admin: Admin, queued: Deployment, size: number): Promise<number> {
  const out = (line: string) => (admin.json ? process.stderr : process.stdout).write(`${line.replace(/\n$/, '')}\n`);
  out(`deployment ${queued.id} queued (${size} bytes uploaded)`);
  let lastError: string | undefined;
  const path = `/deployments/${segment(queued.id)}`;
  await followEvents(
    admin,
    `${path}/events`,
    (frame) => {
      if (frame.event === 'log') out(String(frame.message));
      else if (frame.event === 'app_version_summary') {
        const s = frame as unknown as SummaryFrame;
        out(`app ${s.app_name} version ${s.version}, actions: ${s.actions.map((a) => a.name).join(', ') || '(none)'}`);
      } else if (frame.event === 'error') lastError = (frame.error as { message?: string } | undefined)?.message;
      else if (frame.event === 'deployment_state') return SETTLED.has((frame.deployment as Deployment).status);
      return false;
    },
    async () => SETTLED.has((await admin.call<Deployment>('GET', path)).status),
  );
  const final = await admin.call<Deployment>('GET', path);
  if (final.status === 'running') {
    const hint = final.app_name ? `; invoke an action with \`bcs invoke ${final.app_name} ACTION${final.version && final.version !== 'latest' ? ` --version ${final.version}` : ''}\`` : '';
    admin.print(final, (d) => `deployment ${d.id} is running${hint}`);
    return 0;
  }
  if (admin.json) admin.print(final, () => []);
  process.stderr.write(`bcs: deployment ${final.id} ${final.status}: ${final.status_reason ?? lastError ?? 'no reason given'}\n`);
  return 1;
}

/** `--env` values as the deployment's variables; those taken from the environment are kept out of messages. */
function envVars(flags: string[], secrets: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const name = eq < 0 ? flag : flag.slice(0, eq);
    if (!ENV_NAME.test(name)) throw new UsageError(`--env ${name}: a variable name is a letter or _, then letters, digits or _`);
    if (eq >= 0) env[name] = flag.slice(eq + 1);
    else {
      const value = process.env[name];
      if (value === undefined) throw new UsageError(`--env ${name}: ${name} is not set in this environment (give --env ${name}=VALUE, or export it)`);
      env[name] = value;
      if (value.length >= SECRET_MIN_LENGTH) secrets.push(value);
    }
  }
  return env;
}

/** The zip to upload and a name for it. */
async function appArchive(path: string, entrypoint: string | undefined): Promise<{ bytes: Uint8Array<ArrayBuffer>; name: string }> {
  const full = resolve(path);
  const info = await stat(full).catch(() => {
    throw new UsageError(`${path}: no such file or folder`);
  });
  const name = basename(full).replace(/\.zip$/i, '') || 'app';
  if (info.isFile()) {
    if (!/\.zip$/i.test(full)) throw new UsageError(`${path}: expected an app folder or a .zip file`);
    return { bytes: new Uint8Array(await readFile(full)), name };
  }
  if (!info.isDirectory()) throw new UsageError(`${path}: expected an app folder or a .zip file`);
  if (entrypoint !== undefined && !(await stat(join(full, entrypoint)).catch(() => undefined))?.isFile()) {
    throw new UsageError(`--entrypoint ${entrypoint}: no such file in ${path}`);
  }
  return { bytes: await zipFolder(full, NOT_UPLOADED), name };
}

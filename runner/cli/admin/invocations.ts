// `bcs invoke` and `bcs invocations`: running a deployed app's action (`POST /invocations`) and listing
// the runs. `bcs invoke` waits for the action's output (queued and followed over the event stream);
// `--async` only queues it, and `--follow` streams its log to stderr while waiting. The output is
// printed as JSON on stdout; a failed invocation exits 1.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Invocation, InvocationCreateParams, InvocationStatus } from '../../../src/api/schemas/apps.js';
import { UsageError } from '../usage-error.js';
import { followEvents } from './follow.js';
import { adminAction, adminFlags, segment, table, type Admin, type Finish, when, wholeNumber } from './output.js';

const STATUSES: InvocationStatus[] = ['queued', 'running', 'succeeded', 'failed'];
const SETTLED = new Set(['succeeded', 'failed']);

interface InvokeFlags {
  version: string;
  payload?: string;
  async?: boolean;
  follow?: boolean;
  timeout?: string;
}

export function registerInvocations(program: Command, finish: Finish): void {
  adminFlags(
    program
      .command('invoke')
      .description("run an action of a deployed app and print its output as JSON")
      .argument('<app>', 'the app name')
      .argument('<action>', 'the action name'),
  )
    .option('--version <version>', 'the app version', 'latest')
    .option('--payload <json|@file>', "the action's payload: JSON text, or @FILE to read it from a file")
    .option('--async', 'queue the invocation and print it, without waiting for the output')
    .option('--follow', "stream the action's log to stderr while waiting for its output")
    .option('--timeout <seconds>', 'stop the action after this many seconds (10-3600; default 900)')
    .action(
      adminAction(finish, async (admin, app: string, action: string, o: InvokeFlags) => {
        const body: InvocationCreateParams = { app_name: app, version: o.version, action_name: action };
        if (o.payload !== undefined) body.payload = await payloadOf(o.payload);
        if (o.timeout !== undefined) body.async_timeout_seconds = wholeNumber(o.timeout, '--timeout', 10, 3600);
        // Always queued and followed: one HTTP request held for as long as an action runs would be cut
        // after 300 s by Node's fetch (undici's headersTimeout) while the action goes on.
        body.async = true;
        const queued = await admin.call<Invocation>('POST', '/invocations', { body });
        if (o.async && !o.follow) {
          admin.print(queued, (i) => `invocation ${i.id} queued; see it with \`bcs invocations list\``);
          return;
        }
        return report(admin, await followInvocation(admin, queued.id, Boolean(o.follow)));
      }),
    );

  const invocations = program.command('invocations').description('list invocations of app actions');
  adminFlags(invocations.command('list').description('list invocations, newest first'))
    .option('--app <name>', 'only invocations of this app')
    .option('--action <name>', 'only invocations of this action')
    .option('--status <status>', `only invocations in this state: ${STATUSES.join(', ')}`)
    .action(
      adminAction(finish, async (admin, o: { app?: string; action?: string; status?: string }) => {
        if (o.status !== undefined && !(STATUSES as string[]).includes(o.status)) {
          throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got '${o.status}'`);
        }
        const query = { app_name: o.app, action_name: o.action, status: o.status };
        const rows = await admin.list<Invocation>('/invocations', query);
        admin.print(rows, (list) =>
          table(['ID', 'APP', 'ACTION', 'STATUS', 'STARTED'], list.map((i) => [i.id, i.app_name, i.action_name, i.status, when(i.started_at)])),
        );
      }),
    );
}

/** Follows the invocation until it ends (its log lines to stderr with `printLog`); returns it as it ended. */
async function followInvocation(admin: Admin, id: string, printLog: boolean): Promise<Invocation> {
  const path = `/invocations/${segment(id)}`;
  await followEvents(
    admin,
    `${path}/events`,
    (frame) => {
      if (frame.event === 'log') {
        if (printLog) process.stderr.write(`${String(frame.message).replace(/\n$/, '')}\n`);
      } else if (frame.event === 'invocation_state') return SETTLED.has((frame.invocation as Invocation).status);
      return false;
    },
    async () => SETTLED.has((await admin.call<Invocation>('GET', path)).status),
  );
  return admin.call<Invocation>('GET', path);
}

/** The output as pretty JSON (or the invocation with --json); exit 1 when it failed. */
function report(admin: Admin, inv: Invocation): number {
  admin.print(inv, (i) => (i.output === undefined ? [] : prettyJson(i.output)));
  if (inv.status === 'failed') {
    process.stderr.write(`bcs: invocation ${inv.id} failed: ${inv.status_reason ?? 'no reason given'}\n`);
    return 1;
  }
  return 0;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** `--payload`: JSON text, or `@FILE` holding it; checked here so a typo is a usage error, not a 400. */
async function payloadOf(flag: string): Promise<string> {
  let text = flag;
  let what = '--payload';
  if (flag.startsWith('@')) {
    const file = flag.slice(1);
    what = `--payload ${flag}`;
    text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`${what}: cannot read ${file} (${err.code ?? err.message})`);
    });
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not JSON: ${(err as Error).message}`);
  }
  return text;
}

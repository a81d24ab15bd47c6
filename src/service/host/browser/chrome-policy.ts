// A session's Chrome Enterprise policies (`chrome_policy`). Chromium reads mandatory policies only from a
// fixed folder of the host (/etc/chromium/policies/managed; /etc/opt/chrome/... for Google Chrome), which
// no command-line switch moves, so one session's policies cannot be given to its browser alone on the host.
// Inside the sandbox they can: the session has its own mount namespace, where a tmpfs covers the policy
// root, the host's own entries there are bound back read-only, and the managed folder is the session's,
// written by the service outside the session's view (its processes cannot change it).
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DomainError } from '../errors.js';
import type { Sandbox } from '../process/index.js';
import type { ChromiumExecutable } from './chromium-path.js';

export type ChromePolicy = Record<string, unknown>;

/** The largest policy object taken, serialized (the hosted API's limit for pools). */
export const MAX_POLICY_BYTES = 5 * 1024 * 1024;

/** Policies the service sets or relies on itself, and why a session may not override them. */
const MANAGED: Array<[RegExp, string]> = [
  [/Extension/, 'extensions are loaded by the service (the browser\'s extensions, or loading them into a running browser)'],
  [/^Proxy/, "the browser's traffic goes through the service's egress proxy (use a proxy resource instead)"],
  [/^(RemoteDebuggingAllowed|DeveloperTools.*|HeadlessMode)$/, 'DevTools and automation are how the service drives the browser'],
  [/^UserDataDir$/, "the browser's user data is the service's (profiles load and save it)"],
];

/** Refuses a policy the service manages; `field` names the object in errors. */
export function checkChromePolicy(policy: ChromePolicy, field: string): void {
  for (const key of Object.keys(policy)) {
    const managed = MANAGED.find(([pattern]) => pattern.test(key));
    if (managed) {
      const message = `${field}.${key}: is a kernel-managed policy and cannot be overridden: ${managed[1]}`;
      throw new DomainError('invalid', 'chrome_policy_blocked', message, [{ code: 'invalid_input', field: `${field}.${key}`, message }]);
    }
  }
  const size = Buffer.byteLength(JSON.stringify(policy));
  if (size > MAX_POLICY_BYTES) {
    const message = `${field}: is ${size} bytes as JSON; at most ${MAX_POLICY_BYTES} (5 MiB) are taken`;
    throw new DomainError('invalid', 'bad_request', message, [{ code: 'invalid_input', field, message }]);
  }
}

/**
 * Checks the policies a browser or pool is to run with, `support` saying whether this host can apply them
 * (chromePolicySupport): refused, never silently dropped. An empty object is no policy.
 */
export function admitChromePolicy(support: { available: boolean; reason: string }, policy: ChromePolicy | null | undefined, field: string): void {
  if (!effectivePolicy(policy)) return;
  checkChromePolicy(policy!, field);
  if (!support.available) throw new DomainError('invalid', 'chrome_policy_unavailable', `${field}: enterprise policies cannot be applied here: ${support.reason}`);
}

/** The policy object a launch uses: an empty one is no policy. */
export function effectivePolicy(policy: ChromePolicy | null | undefined): ChromePolicy | null {
  return policy && Object.keys(policy).length > 0 ? policy : null;
}

/** JSON with object keys sorted at every level, so equal policies give equal launch keys. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Where the executable reads its policies: Google Chrome's folder for a branded Chrome, else Chromium's. */
export function policyRoot(exe: ChromiumExecutable): string {
  const name = basename(exe.path);
  return /chrome/.test(name) && !/chromium/.test(name) ? '/etc/opt/chrome' : '/etc/chromium';
}

/** Whether browsers here can be given policies of their own, and why not. */
export function chromePolicySupport(exe: ChromiumExecutable, sandbox: Sandbox | null, sandboxReason = ''): { available: boolean; reason: string } {
  if (exe.headlessShell) {
    return { available: false, reason: `the Chromium here is the headless shell (${exe.path}), which reads no enterprise policies; install chromium, or point --chromium or BCS_CHROMIUM at a full Chromium` };
  }
  const root = policyRoot(exe);
  if (!sandbox) {
    return {
      available: false,
      reason: `Chromium reads enterprise policies only from ${root}/policies/managed, which the service sets per browser inside its sandbox; the sandbox is off here${sandboxReason ? ` (${sandboxReason})` : ''}`,
    };
  }
  if (!existsSync(root)) {
    return { available: false, reason: `the sandbox mounts each browser's policies over ${root}, which this host does not have; create that folder (empty is fine)` };
  }
  return { available: true, reason: '' };
}

/** The folder of a session's policies: in the session's own folder, outside its view. */
export function policyDir(sessionDir: string): string {
  return join(sessionDir, 'chrome-policy');
}

const POLICY_FILE = 'chrome_policy.json';

/**
 * Writes the session's managed policy folder: the host's own managed policy files (those anyone may read),
 * so the host's administrator still has their say, and the session's policies in a file of their own.
 */
export async function writePolicyDir(dir: string, root: string, policy: ChromePolicy): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const hostManaged = join(root, 'policies', 'managed');
  for (const name of await readdir(hostManaged).catch(() => [] as string[])) {
    const from = join(hostManaged, name);
    if (!name.endsWith('.json') || name === POLICY_FILE || !(await worldReadableFile(from))) continue;
    await copyFile(from, join(dir, name));
  }
  await writeFile(join(dir, POLICY_FILE), JSON.stringify(policy), { mode: 0o644 });
}

/**
 * bwrap arguments that show `dir` at `<root>/policies/managed`: a tmpfs over the root (a folder in the
 * read-only /etc cannot be created), with the host's readable entries bound back read-only.
 */
export async function policyMountArgs(root: string, dir: string): Promise<string[]> {
  const args = ['--perms', '0755', '--tmpfs', root];
  args.push(...(await bindBack(root, new Set(['policies']))));
  args.push('--perms', '0755', '--dir', `${root}/policies`);
  args.push(...(await bindBack(`${root}/policies`, new Set(['managed']))));
  args.push('--ro-bind', dir, `${root}/policies/managed`, '--remount-ro', root);
  return args;
}

/** Binds the entries of host folder `dir` back at their own paths, but for `skip` and what others may not read. */
async function bindBack(dir: string, skip: Set<string>): Promise<string[]> {
  const args: string[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    if (skip.has(name)) continue;
    const info = await stat(path).catch(() => undefined);
    // The sandbox hides what only root may read in /etc; binding it back would undo that.
    if (!info || (info.isDirectory() ? (info.mode & 0o005) !== 0o005 : (info.mode & 0o004) === 0)) continue;
    args.push('--ro-bind', path, path);
  }
  return args;
}

async function worldReadableFile(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && info.isFile() && (info.mode & 0o004) !== 0;
}

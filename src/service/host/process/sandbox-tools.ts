// What every sandboxed Node process of the service (Playwright workers, app workers, monitor checks) is given
// of the host beyond the system: Node itself, bound under SANDBOX_TOOLS when it does not live in the system's
// own bound folders. bwrap makes the folders above a mount point root-only (0700), which the unprivileged user
// could not pass through, so those are made first, traversable.

export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Where the service's own tools appear in a sandbox. */
export const SANDBOX_TOOLS = '/opt/bcs';
/** What the sandbox's system binds show as they are on the host. */
const SANDBOX_SYSTEM = ['/usr/', '/bin/', '/sbin/', '/lib/', '/lib64/'];

/** The bwrap arguments that make SANDBOX_TOOLS (and the folder above it) traversable. */
export const TOOLS_DIRS: readonly string[] = ['--perms', '0755', '--dir', '/opt', '--perms', '0755', '--dir', SANDBOX_TOOLS];

/** Whether `path` is visible in a sandbox through its system binds. */
export function inSandboxSystem(path: string): boolean {
  return SANDBOX_SYSTEM.some((prefix) => path.startsWith(prefix));
}

/** Where `node` (a real path) runs from in a sandbox, and the binds that put it there (after TOOLS_DIRS). */
export function nodeInSandbox(node: string): { path: string; binds: string[] } {
  if (inSandboxSystem(node)) return { path: node, binds: [] };
  const path = `${SANDBOX_TOOLS}/node`;
  return { path, binds: ['--ro-bind', node, path] };
}

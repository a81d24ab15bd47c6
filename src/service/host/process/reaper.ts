// Nothing a session starts outlives the service, even one killed with SIGKILL, which runs no code of
// its own. A small watcher process, started with the first thing worth watching, learns over its stdin
// which process groups and which session uids are live; when that pipe closes (the service exited,
// however) it kills every such group and every process running as such a uid (a second fork or a setsid
// does not escape a uid), then exits. The bubblewrap sandbox needs none of this (its pid namespace dies
// with the service), but the watcher costs nothing there either.
import { spawn, type ChildProcess } from 'node:child_process';

const WATCHER = `
const fs = require('node:fs');
const uids = new Set(), groups = new Set();
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\\n')) >= 0; buf = buf.slice(i + 1)) {
    const [op, kind, n] = buf.slice(0, i).split(' ');
    const set = kind === 'uid' ? uids : groups;
    if (op === '+') set.add(Number(n)); else set.delete(Number(n));
  }
});
const reap = () => {
  for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} }
  if (!uids.size) return;
  for (const p of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(p)) continue;
    try {
      const m = /^Uid:\\s+(\\d+)\\s+(\\d+)/m.exec(fs.readFileSync('/proc/' + p + '/status', 'utf8'));
      if (m && (uids.has(Number(m[1])) || uids.has(Number(m[2])))) process.kill(Number(p), 'SIGKILL');
    } catch {}
  }
};
process.stdin.on('end', () => {
  // Again after a moment: a fork that was under way during the first pass.
  reap();
  setTimeout(() => { reap(); process.exit(0); }, 200);
});
`;

export class Reaper {
  private child: ChildProcess | undefined;

  watchGroup(pgid: number): void {
    this.send(`+ pg ${pgid}`);
  }

  forgetGroup(pgid: number): void {
    if (this.child) this.send(`- pg ${pgid}`);
  }

  watchUid(uid: number): void {
    this.send(`+ uid ${uid}`);
  }

  forgetUid(uid: number): void {
    if (this.child) this.send(`- uid ${uid}`);
  }

  private send(line: string): void {
    const child = (this.child ??= this.start());
    if (child.stdin?.writable) child.stdin.write(`${line}\n`);
  }

  private start(): ChildProcess {
    // Its own process group, so a signal to the service's group (Ctrl-C) leaves it to do its job; it
    // keeps nothing of the service's environment, which may hold a key.
    const child = spawn(process.execPath, ['-e', WATCHER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: {} });
    child.on('error', () => undefined);
    child.stdin!.on('error', () => undefined);
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return child;
  }
}

let host: Reaper | undefined;

/** The one watcher of this service process (sessions of several services in one process share it). */
export function hostReaper(): Reaper {
  return (host ??= new Reaper());
}

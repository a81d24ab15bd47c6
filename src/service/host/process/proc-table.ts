// A snapshot of the host's process table from /proc: enough to find a process's descendants and
// process group, and to add up their CPU time and memory. (This kernel may lack
// /proc/PID/task/TID/children, so parentage comes from each process's stat line.)
import { readFile, readdir } from 'node:fs/promises';

export interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  comm: string;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
  /** Start time after boot, in clock ticks: orders processes without trusting pid order. */
  startTicks: number;
}

/** Linux reports CPU times in USER_HZ ticks, which is 100 on every architecture Node supports. */
export const CLOCK_TICKS_PER_SECOND = 100;

export class ProcTable {
  private constructor(private readonly entries: Map<number, ProcEntry>) {}

  static async read(): Promise<ProcTable> {
    const names = await readdir('/proc').catch(() => [] as string[]);
    const entries = new Map<number, ProcEntry>();
    await Promise.all(
      names
        .filter((n) => /^\d+$/.test(n))
        .map(async (n) => {
          const entry = parseStat(await readFile(`/proc/${n}/stat`, 'utf8').catch(() => ''));
          if (entry) entries.set(entry.pid, entry);
        }),
    );
    return new ProcTable(entries);
  }

  get(pid: number): ProcEntry | undefined {
    return this.entries.get(pid);
  }

  /** Children of `pid`, oldest first. */
  children(pid: number): ProcEntry[] {
    return [...this.entries.values()].filter((e) => e.ppid === pid).sort((a, b) => a.startTicks - b.startTicks);
  }

  /** Every process below `pid` (not `pid` itself). */
  descendants(pid: number): ProcEntry[] {
    const byParent = new Map<number, ProcEntry[]>();
    for (const e of this.entries.values()) {
      const list = byParent.get(e.ppid) ?? [];
      list.push(e);
      byParent.set(e.ppid, list);
    }
    const out: ProcEntry[] = [];
    const queue = [pid];
    while (queue.length) {
      for (const child of byParent.get(queue.shift()!) ?? []) {
        out.push(child);
        queue.push(child.pid);
      }
    }
    return out;
  }

  group(pgrp: number): ProcEntry[] {
    return [...this.entries.values()].filter((e) => e.pgrp === pgrp);
  }
}

export function parseStat(text: string): ProcEntry | undefined {
  // comm is in parentheses and may itself contain spaces and parentheses: split after the last ')'.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, pgrp 5, utime 14, stime 15, starttime 22.
  const num = (field: number) => Number(fields[field - 3]);
  const entry = {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    ppid: num(4),
    pgrp: num(5),
    cpuTicks: num(14) + num(15),
    startTicks: num(22),
  };
  return Number.isFinite(entry.pid) && Number.isFinite(entry.ppid) ? entry : undefined;
}

/** Resident memory of a process in bytes (VmRSS), 0 when it is gone or a zombie. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Sends a signal, ignoring processes that are already gone. */
export function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: gone already.
  }
}

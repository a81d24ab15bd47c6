// Creating a session: admitted against the limits, given a place on the host (capacity.ts), then its
// browser: a matching standby browser handed off (no launch) when there is one, else one launched for it.
// The record goes in first either way, and a create whose browser never comes up leaves none behind.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserCreateParams } from '../../../api/types.js';
import { unavailable } from '../errors.js';
import { newId } from '../../ids.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { Upstream } from '../proxy/index.js';
import { PID_FILE, launchSpecOf, sessionLayout, type LaunchEnv, type LaunchSpec, type WarmBrowser } from '../browser/index.js';
import type { HostCapacity, Slot } from './capacity.js';
import { sessionRow, writeRecord } from './record.js';
import type { SessionCounts } from './session-counts.js';
import type { Admission, SessionCreatedListener, SessionKind, SessionManagerDeps, WarmSource } from './types.js';

export interface CreateDeps extends Pick<SessionManagerDeps, 'repo' | 'cluster' | 'now' | 'log' | 'sessionsDir'> {
  env: LaunchEnv;
  counts: SessionCounts;
  capacity: HostCapacity;
  isClosing(): boolean;
  admission(): Admission | undefined;
  warmSource(): WarmSource | undefined;
  launch(spec: LaunchSpec, opts: { id: string; recorded: boolean }): Promise<WarmBrowser>;
  /** The browser becomes the session's; resolves to the record as started. */
  activate(row: BrowserRow, warm: WarmBrowser): Promise<BrowserRow>;
  /** The session's place on the host, kept until its browser is gone; false when it has ended already. */
  hold(id: string, slot: Slot): boolean;
  createdListeners(): SessionCreatedListener[];
}

export interface CreateOptions {
  poolId?: string;
  proxy?: Upstream | null;
  signal?: AbortSignal;
}

/** Creates a session (SessionManager.create); resolves to its record as started. */
export async function createSession(deps: CreateDeps, params: BrowserCreateParams, projectId: string | null, opts: CreateOptions): Promise<BrowserRow> {
  const startedAt = performance.now();
  if (deps.isClosing()) throw unavailable('shutting_down', 'the service is shutting down');
  const poolId = opts.poolId ?? null;
  if (poolId === null) {
    const admit = await deps.admission()?.(projectId);
    // Checked and counted with no await between, so parallel creates cannot overshoot a limit together.
    if (deps.isClosing()) throw unavailable('shutting_down', 'the service is shutting down');
    admit?.();
    deps.counts.countOnDemand(projectId, 1);
  }
  const kind: SessionKind = poolId === null ? 'on_demand' : 'pooled';
  let row: BrowserRow;
  let slot: Slot | undefined;
  try {
    // Past the limit's check (a 429 needs no wait): the create waits here when the host is full.
    slot = await deps.capacity.take(opts.signal);
    deps.counts.creating[kind]++;
    try {
      row = await createAdmitted(deps, params, projectId, poolId, opts.proxy ?? null);
    } finally {
      deps.counts.creating[kind]--;
    }
  } catch (err) {
    slot?.release();
    if (poolId === null) deps.counts.countOnDemand(projectId, -1);
    throw err;
  }
  // Held until the session's browser is gone; a session that ended while being answered gives it back now.
  if (!deps.hold(row.id, slot)) slot.release();
  const seconds = (performance.now() - startedAt) / 1000;
  for (const listener of deps.createdListeners()) {
    try {
      listener(row, seconds);
    } catch (err) {
      deps.log.warn({ session_id: row.id, err: (err as Error).message }, 'a session created listener failed');
    }
  }
  return row;
}

async function createAdmitted(
  deps: CreateDeps,
  params: BrowserCreateParams,
  projectId: string | null,
  poolId: string | null,
  proxy: Upstream | null,
): Promise<BrowserRow> {
  const spec = launchSpecOf(params, proxy);
  const offer = poolId === null ? deps.warmSource()?.take(spec) : undefined;
  if (offer) {
    let row: BrowserRow;
    try {
      row = await record(deps, offer.id, params, projectId, poolId);
    } catch (err) {
      deps.warmSource()!.putBack(offer);
      throw err;
    }
    let warm: WarmBrowser;
    try {
      warm = await offer.browser;
    } catch (err) {
      await forget(deps, offer.id);
      throw err;
    }
    // The record holds the pid now, and the folder is the session's view, where the file would show.
    void unlink(join(deps.sessionsDir, warm.id, PID_FILE)).catch(() => undefined);
    return deps.activate(row, warm);
  }
  const id = newId();
  // The record goes in first: the unique index settles name races before any browser is launched.
  const row = await record(deps, id, params, projectId, poolId);
  let launched: WarmBrowser;
  deps.counts.coldCreates++;
  try {
    launched = await deps.launch(spec, { id, recorded: true });
  } catch (err) {
    await forget(deps, id);
    throw err;
  } finally {
    deps.counts.coldCreates--;
  }
  return deps.activate(row, launched);
}

async function record(deps: CreateDeps, id: string, params: BrowserCreateParams, projectId: string | null, poolId: string | null): Promise<BrowserRow> {
  const { sandbox, userDataDir } = sessionLayout(deps.env, id);
  const { cluster } = deps;
  const row = sessionRow(id, params, { projectId, poolId, sandboxed: sandbox !== null, userDataDir, now: deps.now(), hostId: cluster?.hostId ?? null });
  await writeRecord(row, () => (cluster ? cluster.insert(row) : deps.repo.insert(row)));
  return row;
}

/** Removes the record of a create whose browser never came up; the create's own failure is what is thrown. */
async function forget(deps: CreateDeps, id: string): Promise<void> {
  await deps.repo.remove(id).catch((err: unknown) => deps.log.warn({ session_id: id, err: (err as Error).message }, 'could not remove the record of a failed create'));
}

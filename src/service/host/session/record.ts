// A session's record: the row a create inserts, and how the browsers table's unique indexes (an active name
// per project, one read-write holder per profile) answer when a write runs into them.
import type { BrowserCreateParams } from '../../../api/types.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import { effectivePolicy } from '../browser/index.js';
import { conflict } from '../errors.js';
import { UniqueViolation } from '../../store/unique.js';

export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The record of a new session `id`, from its create params (profile and extensions resolved to ids). */
export function sessionRow(
  id: string,
  params: BrowserCreateParams,
  at: { projectId: string | null; poolId: string | null; sandboxed: boolean; userDataDir: string; now: Date; hostId: string | null },
): BrowserRow {
  return {
    id,
    project_id: at.projectId,
    name: params.name ?? null,
    tags: params.tags ?? {},
    headless: params.headless ?? true,
    stealth: params.stealth ?? false,
    kiosk_mode: params.kiosk_mode ?? false,
    timeout_seconds: params.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
    viewport: params.viewport ?? null,
    start_url: params.start_url ?? null,
    created_at: at.now.toISOString(),
    deleted_at: null,
    end_reason: null,
    end_detail: null,
    pid: null,
    user_data_dir: at.userDataDir,
    sandboxed: at.sandboxed,
    pool_id: at.poolId,
    profile_id: params.profile?.id ?? null,
    profile_save_changes: params.profile?.save_changes === true,
    invocation_id: params.invocation_id ?? null,
    private_hosts: params.network?.private_hosts?.length ? [...params.network.private_hosts] : null,
    chrome_policy: effectivePolicy(params.chrome_policy),
    host_id: at.hostId,
  };
}

/** Runs a write of a session's record, answering the unique indexes' refusals as 409s about `row`. */
export async function writeRecord(row: Pick<BrowserRow, 'name' | 'profile_id'>, write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if (!(err instanceof UniqueViolation)) throw err;
    // The other unique index: a profile is loaded read-write by one active session at a time.
    if (err.columns.includes('profile_id')) {
      throw conflict(`profile '${row.profile_id}' is already loaded with save_changes: true by another active browser; end that one first, or load it with save_changes: false`);
    }
    throw conflict(`a browser named '${row.name}' is already active in this project`);
  }
}

// Loading a profile into a running browser that has none (PATCH /browsers/{id} with `profile`, as on the
// hosted API): Chromium restarts from the profile's saved state (session/restart.ts; the profile's launch
// preparer swaps the browser's user data for a copy of the profile). With save_changes the session then
// holds the profile read-write and writes it back when it ends, as if it had been created with it.
import type { BrowserProfileSelector } from '../../../api/types.js';
import type { BrowserRow, BrowsersRepo } from '../../store/browsers-repo.js';
import { conflict, notFound } from '../errors.js';
import { writeRecord, type SessionManager } from '../session/index.js';
import type { ProfileStore } from './profiles.js';

export interface ProfileLoadDeps {
  profiles: Pick<ProfileStore, 'select' | 'checkWritable' | 'presentRef'>;
  browsers: Pick<BrowsersRepo, 'setProfile'>;
  sessions: Pick<SessionManager, 'get' | 'restart'>;
}

/**
 * Checks that `selector` can be loaded into the browser of `row` now (before any other change of the same
 * request is made) and returns the step that loads it. `field` names the selector in errors.
 */
export async function prepareProfileLoad(
  deps: ProfileLoadDeps,
  row: BrowserRow,
  selector: BrowserProfileSelector,
  field: string,
): Promise<() => Promise<void>> {
  if (row.profile_id) {
    const loaded = await deps.profiles.presentRef(row.profile_id);
    throw conflict(`browser '${row.id}' has profile '${loaded.name ?? loaded.id}' loaded already; a profile can only be loaded into a browser that has none`);
  }
  const profile = await deps.profiles.select(row.project_id, selector, field);
  const saveChanges = selector.save_changes === true;
  if (saveChanges) await deps.profiles.checkWritable(profile);
  const session = deps.sessions.get(row.id);
  if (!session || session.ending) throw notFound('browser', row.id);
  return async () => {
    // Recorded first: the unique index settles a race for the profile's write access before any restart.
    await writeRecord({ name: row.name, profile_id: profile.id }, () => deps.browsers.setProfile(row.id, profile.id, saveChanges));
    let undone = false;
    // Taken back when the browser cannot start from it: the session must not write its own state into the profile.
    const undo = async () => {
      if (undone) return;
      undone = true;
      await deps.browsers.setProfile(row.id, null, false);
    };
    try {
      await deps.sessions.restart(row.id, {
        reason: `profile '${profile.name ?? profile.id}' loaded${saveChanges ? ' with save_changes' : ''}`,
        spec: (current) => ({ ...current, profileId: profile.id }),
        undo,
      });
    } catch (err) {
      // The restart's own failure is the answer, not a failed undo's.
      await undo().catch(() => undefined);
      throw err;
    }
  };
}

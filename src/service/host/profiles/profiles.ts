// Profiles: browser state (cookies, site storage, preferences, history) kept between sessions. A profile is
// the folder <dataDir>/profiles/<id>/ holding the part of a Chromium user-data dir worth keeping
// (files.ts). A browser created with a profile starts from a copy of it; one created with
// save_changes writes its user data back when it ends, however it ends: DELETE, timeout, Chromium dying,
// service shutdown, or at the next start after a hard stop (session/recovery.ts).
//
// One active session at a time may hold a profile read-write: the browsers table's unique index decides
// that, atomically with the session's record. The save runs after the session ended, so loads, downloads
// and deletes wait for a save under way, and a save waits for the copies being read out of the folder.
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { BrowserProfileSelector, Profile } from '../../../api/types.js';
import { DomainError, conflict, invalidField, notFound } from '../errors.js';
import { newId } from '../../ids.js';
import type { BrowserRow } from '../../store/browsers-repo.js';
import type { NamedListQuery, ProfileRow, ProfilesRepo } from '../../store/profiles-repo.js';
import { writeDownloadPreferences, type LaunchPreparer } from '../browser/index.js';
import { DOWNLOADS_DIR, USER_DATA_DIR } from '../fs/index.js';
import { copyProfileTree, moveProfileTree, recoverFolders, replaceFolder, snapshotFolder, stagingFolder, tarFolder } from './files.js';
import type { Logger, SessionEndListener, SessionStoppedHook } from '../session/index.js';
import { lookUpInProject } from '../find-in-project.js';
import { UniqueViolation } from '../../store/unique.js';

export interface ProfileStoreDeps {
  repo: ProfilesRepo;
  /** <dataDir>/profiles */
  dir: string;
  now: () => Date;
  log: Logger;
}

/** Names of things that still use a profile (pools); a profile in use cannot be deleted. */
export type ProfileReferrers = (profileId: string) => string[] | Promise<string[]>;

export class ProfileStore {
  /** Saves under way, by profile id. */
  private readonly saving = new Map<string, Promise<void>>();
  /** The save each ending read-write session owes, settled by its stop hook. */
  private readonly owed = new Map<string, () => void>();
  /** Copies being read out of a profile's folder (loads, downloads), which a save's swap waits for. */
  private readonly readers = new Map<string, Set<Promise<unknown>>>();
  /** Counts the saves of each profile since the service started: pools tell stale browsers by it. */
  private readonly generations = new Map<string, number>();
  private readonly updateListeners: ((profileId: string) => void)[] = [];
  private readonly referrers: ProfileReferrers[] = [];

  constructor(private readonly deps: ProfileStoreDeps) {}

  /** Finishes what a hard stop interrupted. Loading and saving are the session hooks `load`, `ending` and `stopped`. */
  async prepare(): Promise<void> {
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    await recoverFolders(this.deps.dir);
  }

  addReferrers(referrers: ProfileReferrers): void {
    this.referrers.push(referrers);
  }

  /** Called after a session's changes were written to a profile (pools with refresh_on_profile_update). */
  onUpdated(listener: (profileId: string) => void): void {
    this.updateListeners.push(listener);
  }

  generation(profileId: string): number {
    return this.generations.get(profileId) ?? 0;
  }

  /** When the profile was last written, as the database says (a save on any host of a cluster moves it). */
  async savedAt(profileId: string): Promise<string | undefined> {
    return (await this.deps.repo.get(profileId))?.updated_at;
  }

  async create(projectId: string | null, name: string | undefined): Promise<ProfileRow> {
    const at = this.deps.now().toISOString();
    const row: ProfileRow = { id: newId(), project_id: projectId, name: name ?? null, created_at: at, updated_at: at, last_used_at: null };
    await this.unique(name, () => this.deps.repo.insert(row));
    return row;
  }

  list(q: NamedListQuery): Promise<{ rows: ProfileRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  /** By id, else by name, within the project; 404 otherwise. */
  find(projectId: string | null, idOrName: string): Promise<ProfileRow> {
    return lookUpInProject(this.deps.repo, projectId, idOrName, 'profile');
  }

  /** The profile a create body names with exactly one of id and name; `field` names it in errors. */
  async select(projectId: string | null, selector: BrowserProfileSelector, field: string): Promise<ProfileRow> {
    if ((selector.id === undefined) === (selector.name === undefined)) throw invalidField(field, 'must have exactly one of id and name');
    const row = selector.id !== undefined ? await this.deps.repo.get(selector.id) : await this.deps.repo.getByName(projectId, selector.name!);
    if (!row || row.project_id !== projectId) throw notFound('profile', (selector.id ?? selector.name)!);
    return row;
  }

  /** Refuses early, with the holder named, what the unique index would refuse at the session's record. */
  async checkWritable(row: ProfileRow): Promise<void> {
    const holder = await this.deps.repo.writerOf(row.id);
    if (holder) {
      throw conflict(
        `profile '${row.name ?? row.id}' is loaded with save_changes: true by browser '${holder}'; end that session first, or load the profile with save_changes: false`,
      );
    }
  }

  async rename(row: ProfileRow, name: string): Promise<ProfileRow> {
    await this.unique(name, () => this.deps.repo.rename(row.id, name, this.deps.now()));
    const renamed = await this.deps.repo.get(row.id);
    if (!renamed) throw notFound('profile', row.id);
    return renamed;
  }

  /** Refused while a pool uses the profile. Sessions using it keep their copy; a pending save is dropped. */
  async delete(row: ProfileRow): Promise<void> {
    const users = (await Promise.all(this.referrers.map((referrers) => referrers(row.id)))).flat();
    if (users.length) {
      throw new DomainError('invalid', 'resource_in_use', `profile '${row.name ?? row.id}' is still used by ${users.join(', ')}; stop using it there first`);
    }
    await this.deps.repo.remove(row.id);
    await this.saving.get(row.id);
    await Promise.all(this.readers.get(row.id) ?? []);
    await rm(this.folder(row.id), { recursive: true, force: true });
  }

  /**
   * The profile's state as a tar stream. It streams from a snapshot taken after any save under way, so it
   * is never half old, half new, and a slow client holds up no save.
   */
  async download(row: ProfileRow, warn: (msg: string, err: unknown) => void): Promise<Readable> {
    const snapshot = snapshotFolder(this.folder(row.id));
    try {
      // A profile no session has saved into yet has no folder: an empty archive.
      await mkdir(snapshot, { recursive: true, mode: 0o700 });
      await this.reading(row.id, () => this.copyOut(row.id, snapshot));
    } catch (err) {
      await rm(snapshot, { recursive: true, force: true });
      throw err;
    }
    const stream = tarFolder(snapshot, warn);
    void finished(stream)
      .catch(() => undefined)
      .then(() => rm(snapshot, { recursive: true, force: true }));
    return stream;
  }

  present(row: ProfileRow): Profile {
    const profile: Profile = { id: row.id, name: row.name, created_at: row.created_at, updated_at: row.updated_at };
    if (row.last_used_at) profile.last_used_at = row.last_used_at;
    return profile;
  }

  /** The `profile` of a browser that loaded `profileId`; only the id once the profile is deleted. */
  async presentRef(profileId: string): Promise<Profile> {
    return (await this.presentRefs([profileId])).get(profileId)!;
  }

  /** `presentRef` of each of these profiles, in one query. */
  async presentRefs(profileIds: readonly string[]): Promise<Map<string, Profile>> {
    const rows = profileIds.length ? await this.deps.repo.getMany(profileIds) : new Map<string, ProfileRow>();
    return new Map(profileIds.map((id) => [id, rows.has(id) ? this.present(rows.get(id)!) : ({ id } as Profile)]));
  }

  private folder(profileId: string): string {
    return join(this.deps.dir, profileId);
  }

  private async unique(name: string | undefined, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (err instanceof UniqueViolation) throw conflict(`a profile named '${name}' already exists in this project`);
      throw err;
    }
  }

  /** Runs `work` as a reader of the profile's folder: after any save under way, and before the next swap. */
  private async reading(profileId: string, work: () => Promise<void>): Promise<void> {
    await this.saving.get(profileId);
    let set = this.readers.get(profileId);
    if (!set) this.readers.set(profileId, (set = new Set()));
    const reader = work();
    const settled = reader.catch(() => undefined);
    set.add(settled);
    void settled.finally(() => {
      set.delete(settled);
      if (set.size === 0 && this.readers.get(profileId) === set) this.readers.delete(profileId);
    });
    await reader;
  }

  /** Copies the profile's folder into `dest` (an existing folder); a profile never saved into has none. */
  private async copyOut(profileId: string, dest: string): Promise<void> {
    await copyProfileTree(this.folder(profileId), dest, false).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  /**
   * Launch preparer: a browser with a profile starts from a copy of its folder (none yet: an empty profile).
   * A restart that loads a profile into a running browser (one that had none) replaces the browser's user
   * data with that copy, prepared outside the view; a restart with the profile it had keeps its user data.
   */
  readonly load: LaunchPreparer = async (spec, ctx) => {
    const profileId = spec.profileId;
    if (!profileId || ctx.previous?.profileId === profileId) return [];
    if (ctx.previous?.profileId) throw new Error(`the browser has profile '${ctx.previous.profileId}' loaded already`);
    const target = ctx.previous ? await ctx.staging() : ctx.view.hostPath(USER_DATA_DIR);
    await this.reading(profileId, async () => {
      if (!(await this.deps.repo.get(profileId))) throw new Error(`profile '${profileId}' was deleted`);
      await this.copyOut(profileId, target);
    });
    if (ctx.previous) {
      await writeDownloadPreferences(target, ctx.inView(DOWNLOADS_DIR));
      await ctx.install(target, USER_DATA_DIR);
    }
    await this.deps.repo.markUsed(profileId, this.deps.now());
    return [];
  };

  /** Told synchronously as a session starts ending: from now on its profile has a save pending. */
  readonly ending: SessionEndListener = (session) => {
    if (!session.profile?.saveChanges) return;
    const profileId = session.profile.id;
    let settle!: () => void;
    const pending = new Promise<void>((resolve) => (settle = resolve));
    const chained = (this.saving.get(profileId) ?? Promise.resolve()).then(() => pending);
    this.saving.set(profileId, chained);
    this.owed.set(session.id, () => {
      settle();
      void chained.then(() => {
        if (this.saving.get(profileId) === chained) this.saving.delete(profileId);
      });
    });
  };

  /** Stop hook: Chromium is gone, its files complete; a read-write session's user data becomes the profile. */
  readonly stopped: SessionStoppedHook = async (row) => {
    if (!row.profile_save_changes || !row.profile_id) return;
    const settle = this.owed.get(row.id);
    this.owed.delete(row.id);
    try {
      await this.save(row.profile_id, row);
    } finally {
      settle?.();
    }
  };

  private async save(profileId: string, row: BrowserRow): Promise<void> {
    const { repo, log } = this.deps;
    const fields = { profile_id: profileId, session_id: row.id };
    if (!row.user_data_dir || !(await repo.get(profileId))) {
      log.warn(fields, 'the profile was deleted while the session used it; its changes are dropped');
      return;
    }
    // The save takes the user data away (moves, not copies), so it first claims the folder by renaming it:
    // should two ends of one session ever race (a service restarted on a data dir while the old one still
    // ran), one saves and the other finds nothing left to save. The claimed folder goes with the session's.
    const claimed = `${row.user_data_dir}.saving-${newId(8)}`;
    try {
      await rename(row.user_data_dir, claimed);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const target = this.folder(profileId);
    const staged = stagingFolder(target);
    const started = Date.now();
    try {
      const entries = await moveProfileTree(claimed, staged);
      await Promise.all(this.readers.get(profileId) ?? []);
      if (!(await repo.get(profileId))) {
        await rm(staged, { recursive: true, force: true });
        return;
      }
      await replaceFolder(staged, target);
      await repo.markUpdated(profileId, this.deps.now());
      this.generations.set(profileId, this.generation(profileId) + 1);
      log.info({ ...fields, entries, ms: Date.now() - started }, 'profile saved');
    } catch (err) {
      await rm(staged, { recursive: true, force: true }).catch(() => undefined);
      log.warn({ ...fields, err: (err as Error).message }, 'could not save the profile; it keeps its previous state');
      return;
    }
    for (const listener of this.updateListeners) {
      try {
        listener(profileId);
      } catch (err) {
        log.warn({ ...fields, err: (err as Error).message }, 'a profile update listener failed');
      }
    }
  }
}

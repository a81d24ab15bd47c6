// Uploaded extensions: the zip exactly as uploaded (<dataDir>/extensions/<id>.zip, which downloads serve and
// the checksum covers) and its unpacked copy (<dataDir>/extensions/<id>/), checked once at upload. A browser
// created with extensions gets its own copy of each in its view (/home/kernel/extensions/<id>, where the
// hosted VM keeps them) and Chromium loads them with --load-extension. The headless shell cannot load
// extensions; full Chromium can, headful or in new headless mode.
import type { Multipart } from '@fastify/multipart';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NAME_PATTERN } from '../../../api/schemas/common.js';
import type { BrowserExtensionSelector, Extension } from '../../../api/types.js';
import { DomainError, conflict, invalidField, notFound } from '../errors.js';
import { newId } from '../../ids.js';
import type { ExtensionRow, ExtensionsRepo } from '../../store/extensions-repo.js';
import type { NamedListQuery } from '../../store/profiles-repo.js';
import type { LaunchPreparer, ChromiumExecutable } from '../browser/index.js';
import { unpackExtension } from './extension-zip.js';
import { HOME_DIR, multipartError, spoolUpload } from '../fs/index.js';
import { copyProfileTree } from '../profiles/index.js';
import type { Logger } from '../session/index.js';
import { lookUpInProject } from '../find-in-project.js';
import { UniqueViolation } from '../../store/unique.js';

/** The name rule of extension uploads (and of profile names). */
const NAME = new RegExp(NAME_PATTERN);
export const EXTENSIONS_DIR = `${HOME_DIR}/extensions`;

export interface ExtensionStoreDeps {
  repo: ExtensionsRepo;
  /** <dataDir>/extensions */
  dir: string;
  now: () => Date;
  log: Logger;
  /** Whether this host's Chromium can load extensions, and why not. */
  support: { available: boolean; reason: string };
}

export class ExtensionStore {
  private readonly referrers: ((extensionId: string) => string[])[] = [];

  constructor(private readonly deps: ExtensionStoreDeps) {}

  /** Removes what an interrupted upload left. Loading is the launch preparer `load`. */
  async prepare(): Promise<void> {
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(this.deps.dir)) {
      if (name.includes('.incoming-')) await rm(join(this.deps.dir, name), { recursive: true, force: true });
    }
  }

  /** Names of things that still use an extension (pools); an extension in use cannot be deleted. */
  addReferrers(referrers: (extensionId: string) => string[]): void {
    this.referrers.push(referrers);
  }

  /** A clear 400 where only the headless shell is there to run browsers. */
  checkAvailable(): void {
    if (!this.deps.support.available) throw new DomainError('invalid', 'extensions_unavailable', `extensions cannot be loaded here: ${this.deps.support.reason}`);
  }

  /**
   * POST /extensions: a `file` part (the zip) and an optional `name` part. The zip is written to disk as it
   * arrives, hashed on the way, then checked and unpacked; nothing is recorded unless all of that worked.
   * `input` names the request part the fields are in (`body`).
   */
  async upload(projectId: string | null, parts: AsyncIterable<Multipart>, input: string): Promise<ExtensionRow> {
    const id = newId();
    const staging = join(this.deps.dir, `${id}.incoming-${newId(8)}`);
    await mkdir(staging, { mode: 0o700 });
    try {
      let received: { path: string; size: number; checksum: string } | undefined;
      let name: string | undefined;
      try {
        for await (const part of parts) {
          if (part.fieldname === 'file') {
            if (part.type !== 'file') throw invalidField(`${input}.file`, 'must be a file part');
            if (received) throw invalidField(`${input}.file`, 'is given more than once');
            received = await spoolUpload(part.file, join(staging, 'upload.zip'));
          } else if (part.fieldname === 'name') {
            if (part.type !== 'field' || typeof part.value !== 'string') throw invalidField(`${input}.name`, 'must be a text field');
            name = part.value;
          } else {
            throw invalidField(`${input}.${part.fieldname}`, 'unknown field (expected file and name)');
          }
        }
      } catch (err) {
        throw multipartError(err, input);
      }
      if (!received) throw invalidField(`${input}.file`, 'is required');
      if (name !== undefined && !NAME.test(name)) throw invalidField(`${input}.name`, `must match ${NAME_PATTERN}`);
      // Refused before the unpacking work; the unique index decides races at the insert.
      if (name !== undefined && (await this.deps.repo.getByName(projectId, name))) throw nameTaken(name);
      const unpackDir = join(staging, 'unpacked');
      await mkdir(unpackDir, { mode: 0o700 });
      const { root } = await unpackExtension(received.path, unpackDir, `${input}.file`);

      const row: ExtensionRow = {
        id,
        project_id: projectId,
        name: name ?? null,
        created_at: this.deps.now().toISOString(),
        size_bytes: received.size,
        checksum: received.checksum,
        last_used_at: null,
      };
      try {
        await rename(root, this.unpacked(id));
        await rename(received.path, this.zipPath(id));
        await this.deps.repo.insert(row);
      } catch (err) {
        await this.removeFiles(id);
        if (err instanceof UniqueViolation) throw nameTaken(name!);
        throw err;
      }
      return row;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  list(q: NamedListQuery): Promise<{ rows: ExtensionRow[]; hasMore: boolean }> {
    return this.deps.repo.list(q);
  }

  /** By id, else by name, within the project; 404 otherwise. */
  find(projectId: string | null, idOrName: string): Promise<ExtensionRow> {
    return lookUpInProject(this.deps.repo, projectId, idOrName, 'extension');
  }

  /** The extensions a create body lists, each by exactly one of id and name, in order and without repeats. */
  async selectAll(projectId: string | null, selectors: BrowserExtensionSelector[], field: string): Promise<ExtensionRow[]> {
    const rows = new Map<string, ExtensionRow>();
    for (const [i, s] of selectors.entries()) {
      if ((s.id === undefined) === (s.name === undefined)) throw invalidField(`${field}.${i}`, 'must have exactly one of id and name');
      const row = s.id !== undefined ? await this.deps.repo.get(s.id) : await this.deps.repo.getByName(projectId, s.name!);
      if (!row || row.project_id !== projectId) throw notFound('extension', (s.id ?? s.name)!);
      rows.set(row.id, row);
    }
    return [...rows.values()];
  }

  /** Where bodies are received before anything is kept (what a hard stop leaves there goes at the next start). */
  get stagingRoot(): string {
    return this.deps.dir;
  }

  zipPath(extensionId: string): string {
    return join(this.deps.dir, `${extensionId}.zip`);
  }

  /** Refused while a pool uses the extension; running browsers keep their copy. */
  async delete(row: ExtensionRow): Promise<void> {
    const users = this.referrers.flatMap((referrers) => referrers(row.id));
    if (users.length) {
      throw new DomainError('invalid', 'resource_in_use', `extension '${row.name ?? row.id}' is still used by ${users.join(', ')}; stop using it there first`);
    }
    await this.deps.repo.remove(row.id);
    await this.removeFiles(row.id);
  }

  present(row: ExtensionRow): Extension {
    return {
      id: row.id,
      name: row.name,
      created_at: row.created_at,
      size_bytes: row.size_bytes,
      checksum: row.checksum,
      last_used_at: row.last_used_at,
    };
  }

  private unpacked(extensionId: string): string {
    return join(this.deps.dir, extensionId);
  }

  private async removeFiles(extensionId: string): Promise<void> {
    await rm(this.unpacked(extensionId), { recursive: true, force: true });
    await rm(this.zipPath(extensionId), { force: true });
  }

  /**
   * Launch preparer: each uploaded extension copied into the view, and the switches that load exactly
   * those and the ones loaded into the running session (in its view already, see loadIntoSession). On a
   * restart only extensions new to the spec are copied, prepared outside the view.
   */
  readonly load: LaunchPreparer = async (spec, ctx) => {
    const added = spec.extensionIds.filter((id) => !ctx.previous?.extensionIds.includes(id));
    const paths: string[] = [];
    for (const id of spec.extensionIds) {
      const viewPath = `${EXTENSIONS_DIR}/${id}`;
      if (added.includes(id)) {
        if (!(await this.deps.repo.get(id))) throw new Error(`extension '${id}' was deleted`);
        if (ctx.previous) {
          const staged = join(await ctx.staging(), id);
          await copyProfileTree(this.unpacked(id), staged, false);
          await ctx.install(staged, viewPath);
        } else {
          await copyProfileTree(this.unpacked(id), ctx.view.hostPath(viewPath), false);
        }
      }
      paths.push(ctx.inView(viewPath));
    }
    for (const name of spec.extensionDirs) paths.push(ctx.inView(`${EXTENSIONS_DIR}/${name}`));
    if (paths.length === 0) return [];
    // The switches take comma-separated lists.
    const comma = paths.find((path) => path.includes(','));
    if (comma) throw new Error(`the extension path ${comma} contains a comma; move the data dir`);
    const now = this.deps.now();
    for (const id of added) await this.deps.repo.markUsed(id, now);
    // A loaded folder may have the name of an uploaded one's id: it replaced that folder, loaded once.
    const list = [...new Set(paths)].join(',');
    return [`--load-extension=${list}`, `--disable-extensions-except=${list}`];
  };
}

function nameTaken(name: string): DomainError {
  return conflict(`an extension named '${name}' already exists in this project`);
}

/** Whether browsers launched with `exe` can load extensions: the headless shell cannot, full Chromium can. */
export function extensionSupport(exe: ChromiumExecutable): { available: boolean; reason: string } {
  return exe.headlessShell
    ? {
        available: false,
        reason: `the Chromium here is the headless shell (${exe.path}), which has no extension support; install chromium, or point --chromium or BCS_CHROMIUM at a full Chromium (its new headless mode loads extensions)`,
      }
    : { available: true, reason: '' };
}

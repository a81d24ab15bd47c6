// Loading unpacked extensions into a running browser (POST /browsers/{id}/extensions, the SDK's
// browsers.loadExtensions), as the hosted VM does: each zip lands at /home/kernel/extensions/<name> and
// Chromium is restarted with them beside the ones it had, from the same user data (session/restart.ts).
// Every zip is received, checked and unpacked before the browser is touched, so a bad one is a 400 and the
// browser runs on as it was.
import type { Multipart } from '@fastify/multipart';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NAME_PATTERN } from '../../../api/schemas/common.js';
import { newId } from '../../ids.js';
import { invalidField } from '../errors.js';
import { multipartError, spoolUpload } from '../fs/index.js';
import type { SessionManager } from '../session/index.js';
import { unpackExtension } from './extension-zip.js';
import { EXTENSIONS_DIR } from './extensions.js';

const NAME = new RegExp(NAME_PATTERN);
/** Extensions one call may load; the multipart limits of the route say the same. */
export const MAX_LOADED_EXTENSIONS = 20;

/** Field names as form encoders write an array of objects: extensions[N][name], extensions[N].name, extensions.N.name. */
const FIELD = /^extensions(?:\[(\d{1,2})\]|\.(\d{1,2}))(?:\[(name|zip_file)\]|\.(name|zip_file))$/;

interface Received {
  name?: string;
  zip?: string;
}

export interface StagedExtension {
  name: string;
  /** The unpacked extension's folder (the one holding manifest.json), outside any view. */
  root: string;
}

/**
 * Receives the multipart body into `staging` (a new folder of the service's) and checks it: names (folder
 * names under /home/kernel/extensions, unique in the call) and zips (each an unpacked extension). `input`
 * names the request part (`body`).
 */
export async function receiveExtensions(parts: AsyncIterable<Multipart>, staging: string, input: string): Promise<StagedExtension[]> {
  const received = new Map<number, Received>();
  try {
    for await (const part of parts) {
      const m = FIELD.exec(part.fieldname);
      if (!m) throw invalidField(`${input}.${part.fieldname}`, 'unknown field (expected extensions[N][name] and extensions[N][zip_file])');
      const index = Number(m[1] ?? m[2]);
      const key = (m[3] ?? m[4]) as 'name' | 'zip_file';
      const field = `${input}.extensions.${index}.${key}`;
      if (index >= MAX_LOADED_EXTENSIONS) throw invalidField(`${input}.extensions`, `at most ${MAX_LOADED_EXTENSIONS} extensions are loaded at once`);
      const entry = received.get(index) ?? {};
      received.set(index, entry);
      if (key === 'name') {
        if (part.type !== 'field' || typeof part.value !== 'string') throw invalidField(field, 'must be a text field');
        if (entry.name !== undefined) throw invalidField(field, 'is given more than once');
        entry.name = part.value;
      } else {
        if (part.type !== 'file') throw invalidField(field, 'must be a file part (the zip)');
        if (entry.zip !== undefined) throw invalidField(field, 'is given more than once');
        entry.zip = (await spoolUpload(part.file, join(staging, `${index}.zip`))).path;
      }
    }
  } catch (err) {
    throw multipartError(err, input);
  }
  if (received.size === 0) throw invalidField(`${input}.extensions`, 'is required: at least one {name, zip_file}');
  const names = new Set<string>();
  const staged: StagedExtension[] = [];
  for (const index of [...received.keys()].sort((a, b) => a - b)) {
    const { name, zip } = received.get(index)!;
    const field = `${input}.extensions.${index}`;
    if (name === undefined) throw invalidField(`${field}.name`, 'is required');
    if (zip === undefined) throw invalidField(`${field}.zip_file`, 'is required');
    // `.` and `..` match the pattern but name no folder of their own.
    if (!NAME.test(name) || name === '.' || name === '..') throw invalidField(`${field}.name`, `must match ${NAME_PATTERN} (and not be . or ..)`);
    if (names.has(name)) throw invalidField(`${field}.name`, `'${name}' is given twice`);
    names.add(name);
    const dir = join(staging, `${index}.unpacked`);
    await mkdir(dir, { mode: 0o700 });
    const { root } = await unpackExtension(zip, dir, `${field}.zip_file`);
    staged.push({ name, root });
  }
  return staged;
}

/**
 * Loads the received extensions into session `sessionId`: Chromium restarts with them (a folder of the
 * same name is replaced); the call returns once the new Chromium is up. `stagingRoot` is where the body is
 * received (removed afterwards).
 */
export async function loadIntoSession(
  sessions: Pick<SessionManager, 'restart'>,
  sessionId: string,
  parts: AsyncIterable<Multipart>,
  stagingRoot: string,
  input: string,
): Promise<string[]> {
  const staging = join(stagingRoot, `${newId()}.incoming-${newId(8)}`);
  await mkdir(staging, { recursive: true, mode: 0o700 });
  try {
    const staged = await receiveExtensions(parts, staging, input);
    const names = staged.map((s) => s.name);
    await sessions.restart(sessionId, {
      reason: `extension${names.length === 1 ? '' : 's'} ${names.join(', ')} loaded`,
      spec: (current) => ({ ...current, extensionDirs: [...current.extensionDirs.filter((n) => !names.includes(n)), ...names] }),
      prepare: async (ctx) => {
        for (const { name, root } of staged) await ctx.install(root, `${EXTENSIONS_DIR}/${name}`);
      },
    });
    return names;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

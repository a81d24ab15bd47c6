// The multipart bodies of fs/upload and fs/upload_zip, consumed part by part as they arrive: nothing is
// held in memory. A file part whose dest_path has already arrived streams straight to its destination;
// one that comes first (form encoders order parts as they please) is spooled to a temp file and moved
// once its dest_path shows up. A zip always goes to a temp file, since its directory is at its end.
import type { Multipart } from '@fastify/multipart';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { DomainError, invalidField } from '../errors.js';
import type { ConfinedWalk } from './confined-fs.js';
import { checkClientPath, cleanViewPath, fsError, holdErrors, writeError, writeFileFrom } from './ops.js';
import { extractZip } from './zip.js';

/** Temp files for parts that cannot go to their destination yet; removed when the request is done. */
class Spool {
  private dir: string | undefined;
  private count = 0;

  async save(part: Extract<Multipart, { type: 'file' }>): Promise<string> {
    const source = holdErrors(part.file);
    this.dir ??= await mkdtemp(join(tmpdir(), 'bcs-upload-'));
    const path = join(this.dir, String(this.count++));
    await pipeline(source, createWriteStream(path, { mode: 0o600 }));
    return path;
  }

  async remove(): Promise<void> {
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * The multipart parser's own failures (a truncated body, a missing boundary) are plain Errors without
 * an errno code: the client's doing, so a 400 rather than a 500. Everything else passes unchanged.
 */
export function multipartError(err: unknown, input: string): unknown {
  const e = err as { code?: unknown; statusCode?: unknown };
  if (err instanceof DomainError || e.code !== undefined || e.statusCode !== undefined) return err;
  if (err instanceof Error && err.constructor === Error) return invalidField(input, `is not a well-formed multipart body (${err.message})`);
  return err;
}

/** Field names of fs/upload as the hosted server accepts them: files[N][file], files[N].file, files.N.file, and file alone. */
const UPLOAD_FIELD = /^files(?:\[(\d{1,4})\]|\.(\d{1,4}))(?:\[(file|dest_path)\]|\.(file|dest_path))$/;

function uploadField(name: string, input: string): { index: number; key: 'file' | 'dest_path'; field: string } {
  if (name === 'file' || name === 'dest_path') return { index: 0, key: name, field: `${input}.${name}` };
  const m = UPLOAD_FIELD.exec(name);
  if (!m) throw invalidField(`${input}.${name}`, 'unknown field (expected files[N][file] and files[N][dest_path])');
  const index = Number(m[1] ?? m[2]);
  const key = (m[3] ?? m[4]) as 'file' | 'dest_path';
  return { index, key, field: `${input}.files.${index}.${key}` };
}

function fieldText(part: Extract<Multipart, { type: 'field' }>, field: string): string {
  if (part.valueTruncated) throw invalidField(field, 'is too long');
  if (typeof part.value !== 'string' || part.value === '') throw invalidField(field, 'must be a non-empty string');
  return part.value.trim();
}

interface UploadItem {
  dest?: { clientPath: string; field: string };
  spooled?: string;
  sawFile: boolean;
}

/** fs/upload: writes every files[N][file] to its files[N][dest_path], creating parent directories as the hosted server does. */
/** `input` names the request part the fields are in (`body`). */
export async function receiveUploads(parts: AsyncIterable<Multipart>, walk: ConfinedWalk, input: string): Promise<void> {
  const items = new Map<number, UploadItem>();
  const spool = new Spool();
  const deliver = async (source: Readable, dest: NonNullable<UploadItem['dest']>) => {
    try {
      walk.mkdirAll(posix.dirname(cleanViewPath(dest.clientPath)), 0o755);
      await writeFileFrom(source, walk, dest.clientPath, { createMode: 0o644 });
    } catch (err) {
      throw writeError(multipartError(err, input), dest.field, dest.clientPath);
    }
  };
  try {
    for await (const part of parts) {
      const { index, key, field } = uploadField(part.fieldname, input);
      const item = items.get(index) ?? { sawFile: false };
      items.set(index, item);
      if (key === 'dest_path') {
        if (part.type !== 'field') throw invalidField(field, 'must be a text field, not a file');
        if (item.dest) throw invalidField(field, 'is given more than once');
        const clientPath = checkClientPath(fieldText(part, field), field);
        item.dest = { clientPath, field };
        if (item.spooled) await deliver(createReadStream(item.spooled), item.dest);
        continue;
      }
      if (part.type !== 'file') throw invalidField(field, 'must be a file part');
      if (item.sawFile) throw invalidField(field, 'is given more than once');
      item.sawFile = true;
      if (item.dest) await deliver(holdErrors(part.file), item.dest);
      else item.spooled = await spool.save(part).catch((err) => Promise.reject(fsError(multipartError(err, input), field, part.filename)));
    }
  } catch (err) {
    throw multipartError(err, input);
  } finally {
    await spool.remove();
  }
  if (items.size === 0) throw invalidField(`${input}.files`, 'must hold at least one file');
  for (const [index, item] of items) {
    if (!item.sawFile) throw invalidField(`${input}.files.${index}.file`, 'is required');
    if (!item.dest) throw invalidField(`${input}.files.${index}.dest_path`, 'is required');
  }
}

/** fs/upload_zip: extracts zip_file into dest_path (created if missing, as the hosted server does). */
export async function receiveZipUpload(parts: AsyncIterable<Multipart>, walk: ConfinedWalk, input: string): Promise<void> {
  const spool = new Spool();
  try {
    let zipPath: string | undefined;
    let dest: string | undefined;
    for await (const part of parts) {
      if (part.fieldname === 'zip_file') {
        if (part.type !== 'file') throw invalidField(`${input}.zip_file`, 'must be a file part');
        if (zipPath) throw invalidField(`${input}.zip_file`, 'is given more than once');
        zipPath = await spool.save(part);
      } else if (part.fieldname === 'dest_path') {
        if (part.type !== 'field') throw invalidField(`${input}.dest_path`, 'must be a text field, not a file');
        dest = fieldText(part, `${input}.dest_path`);
      } else {
        throw invalidField(`${input}.${part.fieldname}`, 'unknown field (expected zip_file and dest_path)');
      }
    }
    if (!zipPath) throw invalidField(`${input}.zip_file`, 'is required');
    if (!dest) throw invalidField(`${input}.dest_path`, 'is required');
    checkClientPath(dest, `${input}.dest_path`);
    try {
      walk.mkdirAll(dest, 0o755);
    } catch (err) {
      throw fsError(err, `${input}.dest_path`, dest);
    }
    await extractZip(zipPath, walk, cleanViewPath(dest), `${input}.zip_file`).catch((err) => Promise.reject(fsError(err, `${input}.zip_file`, dest)));
  } catch (err) {
    throw multipartError(err, input);
  } finally {
    await spool.remove();
  }
}

/** Writes an upload to `path`, counting and hashing (SHA-256) the exact bytes on the way. */
export async function spoolUpload(source: NodeJS.ReadableStream, path: string): Promise<{ path: string; size: number; checksum: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, tap, createWriteStream(path, { mode: 0o600 }));
  return { path, size, checksum: hash.digest('hex') };
}

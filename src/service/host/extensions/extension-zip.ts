// Checking an uploaded extension zip and unpacking it: the manifest may sit at the root of the archive or
// in a single top folder (what zipping a folder gives); entries that would leave the folder, links and
// encrypted entries are refused (fs/zip.ts), and so is an archive that unpacks into too much.
import { createRequire } from 'node:module';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type yauzlTypes from 'yauzl';
import { DomainError, invalidField } from '../errors.js';
import { withWalk, extractZip } from '../fs/index.js';

const MAX_ENTRIES = 20_000;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** Folders archivers add beside the content; Chromium refuses names starting with `_` in an extension. */
const ARCHIVER_JUNK = '__MACOSX';

export interface ExtensionManifest {
  manifest_version: number;
  name: string;
  version: string;
}

/**
 * Unpacks the zip at `zipPath` into `workDir` (empty, created by the caller) and returns the host path of
 * the extension's root (the folder holding manifest.json) with its checked manifest. `field` names the
 * upload in errors.
 */
export async function unpackExtension(zipPath: string, workDir: string, field: string): Promise<{ root: string; manifest: ExtensionManifest }> {
  const names = await entryNames(zipPath, field);
  const top = rootFolder(names, field);
  await withWalk(workDir, (walk) => extractZip(zipPath, walk, '/', field));
  const root = top ? join(workDir, top) : workDir;
  await rm(join(root, ARCHIVER_JUNK), { recursive: true, force: true });
  return { root, manifest: await readManifest(join(root, 'manifest.json'), field) };
}

/** The names in the central directory, refusing what is not a zip or unpacks into too much. */
async function entryNames(zipPath: string, field: string): Promise<string[]> {
  let zip: yauzlTypes.ZipFile;
  try {
    zip = await yauzl().openPromise(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true });
  } catch (err) {
    throw invalidField(field, `is not a zip archive (${(err as Error).message})`);
  }
  zip.on('error', () => {});
  const names: string[] = [];
  let bytes = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      names.push(entry.fileName);
      bytes += entry.uncompressedSize;
      if (names.length > MAX_ENTRIES) throw invalidField(field, `has more than ${MAX_ENTRIES} entries`);
      if (bytes > MAX_UNPACKED_BYTES) throw invalidField(field, `unpacks into more than ${MAX_UNPACKED_BYTES / 1024 ** 2} MiB`);
    }
  } catch (err) {
    // yauzl's own name checks (absolute paths, `..`) and format errors land here.
    if (err instanceof DomainError) throw err;
    throw invalidField(field, `is not an acceptable zip archive (${(err as Error).message})`);
  } finally {
    zip.close();
  }
  return names;
}

/** '' when manifest.json is at the root, else the one top folder that holds it. */
function rootFolder(names: string[], field: string): string {
  const content = names.filter((n) => n.split('/')[0] !== ARCHIVER_JUNK);
  if (content.includes('manifest.json')) return '';
  const tops = new Set(content.map((n) => n.split('/')[0]!));
  const [top] = tops;
  if (tops.size === 1 && top && content.includes(`${top}/manifest.json`)) return top;
  throw invalidField(field, 'has no manifest.json at its root or in a single top folder');
}

async function readManifest(path: string, field: string): Promise<ExtensionManifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw invalidField(field, 'manifest.json is not a regular file');
  }
  let manifest: unknown;
  try {
    // Chromium reads manifests with a byte-order mark and // or /* */ comments; so does this.
    manifest = JSON.parse(stripComments(text.replace(/^\uFEFF/, '')));
  } catch (err) {
    throw invalidField(field, `manifest.json is not valid JSON (${(err as Error).message})`);
  }
  const m = manifest as Partial<ExtensionManifest> | null;
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw invalidField(field, 'manifest.json must hold a JSON object');
  if (!Number.isInteger(m.manifest_version)) throw invalidField(field, 'manifest.json needs an integer manifest_version');
  if (typeof m.name !== 'string' || !m.name) throw invalidField(field, 'manifest.json needs a name');
  if (typeof m.version !== 'string' || !m.version) throw invalidField(field, 'manifest.json needs a version');
  return m as ExtensionManifest;
}

/** Removes // and /* *\/ comments outside string literals. */
function stripComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/** Loaded on the first archive read, not with the service. */
const yauzl = () => createRequire(import.meta.url)('yauzl') as typeof yauzlTypes;

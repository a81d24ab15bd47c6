// `bcs extensions`: uploaded Chromium extensions (`/extensions`) that browsers load with
// `extensions: [{ name }]`. An unpacked extension folder is zipped in memory for the upload; a .zip is sent
// as it is.
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import type { Extension } from '../../../src/api/index.js';
import { UsageError } from '../usage-error.js';
import { AdminError, adminAction, adminFlags, segment, table, type Finish, when } from './output.js';

/** The service's rule for extension names. */
const NAME = /^[A-Za-z0-9._-]{1,255}$/;

export function registerExtensions(program: Command, finish: Finish): void {
  const extensions = program.command('extensions').description('manage uploaded browser extensions');

  adminFlags(extensions.command('list').description('list uploaded extensions')).action(
    adminAction(finish, async (admin) => {
      const rows = await admin.list<Extension>('/extensions');
      admin.print(rows, (list) =>
        table(['ID', 'NAME', 'SIZE', 'CREATED', 'LAST USED'], list.map((e) => [e.id, e.name, e.size_bytes, when(e.created_at), when(e.last_used_at)])),
      );
    }),
  );

  adminFlags(
    extensions
      .command('upload')
      .description('upload an unpacked extension folder (zipped for you) or a .zip of one')
      .argument('<path>', 'a folder with manifest.json at its top, or a .zip'),
  )
    .option('--name <name>', "the extension's name (default: the folder's or zip's name when it is a valid name)")
    .action(
      adminAction(finish, async (admin, path: string, o: { name?: string }) => {
        const { bytes, name: defaultName } = await archiveOf(path);
        const name = o.name ?? defaultName;
        if (o.name !== undefined && !NAME.test(o.name)) throw new UsageError(`--name must be 1-255 letters, digits, '.', '_' or '-', got '${o.name}'`);
        const form = new FormData();
        form.append('file', new Blob([bytes], { type: 'application/zip' }), `${name ?? 'extension'}.zip`);
        if (name !== undefined) form.append('name', name);
        const ext = await admin.call<Extension>('POST', '/extensions', { body: form });
        admin.print(ext, (e) => `uploaded extension ${e.name ?? '(unnamed)'} (id ${e.id}, ${e.size_bytes} bytes)`);
      }),
    );

  adminFlags(extensions.command('download').description('download an extension as the zip that was uploaded').argument('<id|name>', 'the extension'))
    .requiredOption('--out <file>', 'where to write the zip')
    .action(
      adminAction(finish, async (admin, id: string, o: { out: string }) => {
        const bytes = await admin.call<Uint8Array>('GET', `/extensions/${segment(id)}`, { responseType: 'bytes' });
        const file = resolve(o.out);
        await writeFile(file, bytes).catch((err: Error) => {
          throw new AdminError(`cannot write ${file}: ${err.message}`);
        });
        admin.print({ id, file, size_bytes: bytes.byteLength }, (d) => `wrote extension ${id} to ${d.file} (${d.size_bytes} bytes)`);
      }),
    );

  adminFlags(extensions.command('delete').description('delete an extension').argument('<id|name>', 'the extension')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', `/extensions/${segment(id)}`);
      admin.print({ id, deleted: true }, () => `deleted extension ${id}`);
    }),
  );
}

/** The bytes to upload and the name the path suggests. */
async function archiveOf(path: string): Promise<{ bytes: Uint8Array<ArrayBuffer>; name: string | undefined }> {
  const full = resolve(path);
  const info = await stat(full).catch(() => {
    throw new UsageError(`${path}: no such file or folder`);
  });
  const base = basename(full).replace(/\.zip$/i, '');
  const name = NAME.test(base) ? base : undefined;
  if (info.isFile()) {
    if (!/\.zip$/i.test(full)) throw new UsageError(`${path}: expected a folder or a .zip file`);
    return { bytes: new Uint8Array(await readFile(full)), name };
  }
  if (!info.isDirectory()) throw new UsageError(`${path}: expected a folder or a .zip file`);
  const manifest = await stat(join(full, 'manifest.json')).catch(() => undefined);
  if (!manifest?.isFile()) throw new UsageError(`${path}: no manifest.json at the top of the folder; is it an unpacked extension?`);
  return { bytes: await zipFolder(full), name };
}

/**
 * Every regular file under `dir`, in a stable order, as a zip held in memory. Folders named in `exclude`
 * are skipped at any depth, without being walked (an app's `node_modules`, `.git`).
 */
export async function zipFolder(dir: string, exclude: readonly string[] = []): Promise<Uint8Array<ArrayBuffer>> {
  const files = (await filesUnder(dir, new Set(exclude))).sort();
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const file of files) zip.addBuffer(await readFile(file), relative(dir, file).split(sep).join('/'));
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise<Uint8Array<ArrayBuffer>>((resolveZip, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolveZip(new Uint8Array(Buffer.concat(chunks))));
    zip.outputStream.on('error', reject);
  }).catch((err: Error) => {
    throw new AdminError(`cannot zip ${dir}: ${err.message}`);
  });
}

async function filesUnder(dir: string, exclude: ReadonlySet<string>): Promise<string[]> {
  const files: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (!exclude.has(e.name)) files.push(...(await filesUnder(path, exclude)));
    } else if (e.isFile()) files.push(path);
  }
  return files;
}

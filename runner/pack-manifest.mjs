// npm packs package.json as it is on disk, scripts and all, and every script in it runs something the
// package does not ship (runner/build.mjs, the tsconfigs, the tests): in an installed package each would be
// a command that cannot work. So packing swaps the manifest: `strip` (the last step of prepack) keeps the
// checkout's package.json beside it and writes one without scripts, which npm then packs (and, reading it
// afresh, runs no `prepare` for: the build prepack just made is not made twice); `restore` (postpack, which
// npm runs from the manifest it read before prepack) puts the checkout's back.
//   node runner/pack-manifest.mjs strip|restore
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = `${root}package.json`;
/** Not in package.json's `files`, so never packed; left behind only by a pack that stopped before postpack. */
export const KEPT = `${root}package.json.checkout`;

/** Written whole, then renamed: npm, or anything else reading package.json meanwhile, never sees half. */
async function replace(file, text) {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

export async function strip() {
  // A pack that stopped between the two left the checkout's manifest kept: it, not the stripped one on
  // disk, is the one to keep.
  if (!existsSync(KEPT)) await replace(KEPT, await readFile(manifest, 'utf8'));
  const { scripts: _scripts, ...packed } = JSON.parse(await readFile(KEPT, 'utf8'));
  await replace(manifest, `${JSON.stringify(packed, null, 2)}\n`);
}

export async function restore() {
  if (existsSync(KEPT)) await rename(KEPT, manifest);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'strip') await strip();
  else if (command === 'restore') await restore();
  else {
    process.stderr.write('usage: node runner/pack-manifest.mjs strip|restore\n');
    process.exit(2);
  }
}

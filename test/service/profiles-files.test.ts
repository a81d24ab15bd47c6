// The files of a profile, on a real file system: what a save keeps, that links never travel, and what a
// start after a hard stop does with a half-finished swap.
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProfileTree, moveProfileTree, recoverFolders } from '../../src/service/host/profiles/files.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'bcs-profile-files-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tree(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const name = prefix + entry.name;
    if (entry.isDirectory()) out.push(`${name}/`, ...(await tree(join(dir, entry.name), `${name}/`)));
    else out.push(entry.isSymbolicLink() ? `${name}@` : name);
  }
  return out.sort();
}

async function userData(dir: string): Promise<void> {
  await mkdir(join(dir, 'Default', 'Cache', 'Cache_Data'), { recursive: true });
  await mkdir(join(dir, 'Default', 'Local Storage', 'leveldb'), { recursive: true });
  await mkdir(join(dir, 'Default', 'Network'), { recursive: true });
  await mkdir(join(dir, 'GrShaderCache'), { recursive: true });
  await writeFile(join(dir, 'Default', 'Cache', 'Cache_Data', 'data_0'), 'cached');
  await writeFile(join(dir, 'Default', 'Local Storage', 'leveldb', '000003.log'), 'stored');
  await writeFile(join(dir, 'Default', 'Network', 'Cookies'), 'cookies');
  await writeFile(join(dir, 'Default', 'Preferences'), '{}');
  await writeFile(join(dir, 'Local State'), '{}');
  await writeFile(join(dir, 'DevToolsActivePort'), '9222');
  await symlink('host-1234', join(dir, 'SingletonLock'));
  await symlink('/etc/passwd', join(dir, 'Default', 'Local Storage', 'leveldb', 'planted'));
}

const kept = [
  'Default/',
  'Default/Local Storage/',
  'Default/Local Storage/leveldb/',
  'Default/Local Storage/leveldb/000003.log',
  'Default/Network/',
  'Default/Network/Cookies',
  'Default/Preferences',
  'Local State',
];

describe('profile files', () => {
  it('a save moves what matters and leaves caches, run files and links behind', async () => {
    await userData(join(root, 'session'));
    await moveProfileTree(join(root, 'session'), join(root, 'saved'));
    // Folders below the profile folder move whole, a planted link with them: it is skipped when read.
    expect(await tree(join(root, 'saved'))).toEqual([...kept, 'Default/Local Storage/leveldb/planted@'].sort());
    const loaded = join(root, 'loaded');
    await copyProfileTree(join(root, 'saved'), loaded, false);
    expect(await tree(loaded)).toEqual(kept);
  });

  it('a copy with caches skipped gives the same as a move', async () => {
    await userData(join(root, 'session'));
    await copyProfileTree(join(root, 'session'), join(root, 'copied'), true);
    expect(await tree(join(root, 'copied'))).toEqual(kept);
  });

  it('after a hard stop, a swap cut in the middle is finished and leftovers are removed', async () => {
    const dir = join(root, 'profiles');
    for (const name of ['a.old-abc123', 'b', 'b.old-def456', 'c.incoming-0a1b2c', 'd.download-9z8y7x', 'e']) await mkdir(join(dir, name), { recursive: true });
    await recoverFolders(dir);
    expect((await readdir(dir)).sort()).toEqual(['a', 'b', 'e']);
  });
});

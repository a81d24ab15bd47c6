// HostView.resolve on a real folder: confinement against `..`, symlinks (leaf, parent, dangling,
// chained) and a root that itself lies under a symlink.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/service/host/errors.js';
import { statusOf } from '../../src/service/errors.js';
import { HostView } from '../../src/service/host/fs/host-view.js';

let base: string;
let root: string;
let outside: string;
let view: HostView;

beforeAll(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'bcs-view-')));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'secret'), 's');
  view = new HostView(root);
  await view.createLayout();
  await writeFile(join(root, 'tmp/file'), 'f');
  await symlink(join(outside, 'secret'), join(root, 'tmp/leaf-out'));
  await symlink(outside, join(root, 'tmp/dir-out'));
  await symlink(join(outside, 'missing'), join(root, 'tmp/dangling-out'));
  await symlink('../home/kernel/new-target', join(root, 'tmp/dangling-in'));
  await symlink('dangling-in', join(root, 'tmp/chain-in'));
  await symlink('loop-b', join(root, 'tmp/loop-a'));
  await symlink('loop-a', join(root, 'tmp/loop-b'));
  await symlink(join(root, 'tmp/file'), join(root, 'tmp/leaf-in'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return { status: statusOf(err)!, code: (err as DomainError).code };
}

describe('HostView.resolve', () => {
  it('maps absolute client paths into the folder and clamps .. at its root', async () => {
    expect(await view.resolve('/tmp/file')).toBe(join(root, 'tmp/file'));
    expect(await view.resolve('/home/kernel/../../../../etc/passwd')).toBe(join(root, 'etc/passwd'));
    expect(await view.resolve('/')).toBe(root);
  });

  it('refuses relative paths and NUL bytes with a 400 naming the field', async () => {
    expect(await refusal(view.resolve('tmp/file', 'body.path'))).toEqual({ status: 400, code: 'bad_request' });
    expect(await refusal(view.resolve('/tmp/\0x'))).toEqual({ status: 400, code: 'bad_request' });
  });

  it('refuses symlinks leading outside: at the leaf, as a parent, and dangling', async () => {
    for (const p of ['/tmp/leaf-out', '/tmp/dir-out', '/tmp/dir-out/secret', '/tmp/dir-out/new/deeper', '/tmp/dangling-out', '/tmp/dangling-out/x']) {
      expect(await refusal(view.resolve(p)), p).toEqual({ status: 403, code: 'path_outside_view' });
    }
  });

  it('follows symlinks that stay inside, dangling and chained ones too', async () => {
    expect(await view.resolve('/tmp/leaf-in')).toBe(join(root, 'tmp/file'));
    expect(await view.resolve('/tmp/dangling-in')).toBe(join(root, 'home/kernel/new-target'));
    expect(await view.resolve('/tmp/chain-in')).toBe(join(root, 'home/kernel/new-target'));
    expect(await view.resolve('/tmp/dangling-in/below')).toBe(join(root, 'home/kernel/new-target/below'));
  });

  it('gives up on symlink loops instead of spinning', async () => {
    await expect(view.resolve('/tmp/loop-a')).rejects.toThrow();
  });

  it('accepts names that merely start with two dots', async () => {
    await writeFile(join(root, '..hidden'), 'h');
    expect(await view.resolve('/..hidden')).toBe(join(root, '..hidden'));
  });

  it('works, and maps back with viewPath, when the root itself lies under a symlink', async () => {
    await symlink(base, join(outside, 'base-link'));
    const linked = new HostView(join(outside, 'base-link', 'root'));
    const resolved = await linked.resolve('/tmp/file');
    expect(resolved).toBe(join(root, 'tmp/file'));
    expect(linked.viewPath(resolved)).toBe('/tmp/file');
    expect(linked.viewPath(join(outside, 'base-link', 'root', 'tmp'))).toBe('/tmp');
  });
});

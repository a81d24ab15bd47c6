// `bcs profiles`: browser profiles (`/profiles`) — the cookies and storage a browser created with
// `profile: { name }` starts from — in the project `--project` picks.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Profile } from '../../../src/api/index.js';
import { AdminError, adminAction, adminFlags, segment, table, type Finish, when } from './output.js';

export function registerProfiles(program: Command, finish: Finish): void {
  const profiles = program.command('profiles').description('manage browser profiles (state that browsers start from and save back to)');

  adminFlags(profiles.command('list').description('list profiles')).action(
    adminAction(finish, async (admin) => {
      const rows = await admin.list<Profile>('/profiles');
      admin.print(rows, (list) =>
        table(['ID', 'NAME', 'UPDATED', 'LAST USED'], list.map((p) => [p.id, p.name, when(p.updated_at), when(p.last_used_at)])),
      );
    }),
  );

  adminFlags(profiles.command('create').description('create an empty profile').argument('[name]', 'its name (letters, digits, . _ -)')).action(
    adminAction(finish, async (admin, name: string | undefined) => {
      const profile = await admin.call<Profile>('POST', '/profiles', { body: name === undefined ? {} : { name } });
      admin.print(profile, (p) => `created profile ${p.name ?? '(unnamed)'} (id ${p.id})`);
    }),
  );

  adminFlags(profiles.command('delete').description('delete a profile').argument('<id|name>', 'the profile')).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', `/profiles/${segment(id)}`);
      admin.print({ id, deleted: true }, () => `deleted profile ${id}`);
    }),
  );

  adminFlags(profiles.command('download').description("download a profile's user data as a tar file").argument('<id|name>', 'the profile'))
    .requiredOption('--out <file>', 'where to write the tar')
    .action(
      adminAction(finish, async (admin, id: string, o: { out: string }) => {
        const bytes = await admin.call<Uint8Array>('GET', `/profiles/${segment(id)}/download`, { query: { format: 'tar' }, responseType: 'bytes' });
        const file = resolve(o.out);
        await writeFile(file, bytes).catch((err: Error) => {
          throw new AdminError(`cannot write ${file}: ${err.message}`);
        });
        admin.print({ id, file, size_bytes: bytes.byteLength }, (d) => `wrote profile ${id} to ${d.file} (${d.size_bytes} bytes)`);
      }),
    );
}

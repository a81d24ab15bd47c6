// `bcs keys`: the service's API keys (`/org/api_keys`). A created or rotated key's plaintext is printed
// once, on stdout, and never again: afterwards keys are only ever shown masked.
import type { Command } from 'commander';
import type { ApiKey, ApiKeyCreateParams, ApiKeyRotateParams, CreatedApiKey } from '../../../src/api/index.js';
import { adminAction, adminFlags, segment, table, type Finish, when, wholeNumber } from './output.js';

const ORG = { project: false };

export function registerKeys(program: Command, finish: Finish): void {
  const keys = program.command('keys').description("manage the service's API keys (needs an organization-wide key)");

  adminFlags(keys.command('list').description('list API keys, masked'), ORG)
    .option('--all', 'include deleted keys')
    .action(
      adminAction(finish, async (admin, o: { all?: boolean }) => {
        const rows = await admin.list<ApiKey>('/org/api_keys', { status: o.all ? 'all' : 'active' });
        admin.print(rows, (list) =>
          table(
            ['ID', 'NAME', 'KEY', 'PROJECT', 'EXPIRES', 'CREATED', ...(o.all ? ['DELETED'] : [])],
            list.map((k) => [k.id, k.name, k.masked_key, k.project_name ?? k.project_id, k.expires_at ? when(k.expires_at) : 'never', when(k.created_at), ...(o.all ? [when(k.deleted_at)] : [])]),
          ),
        );
      }),
    );

  adminFlags(keys.command('create').description('create an API key; its plaintext is printed once').argument('<name>', 'a name for the key'), ORG)
    .option('--days <n>', 'expire after n days (1-3650; default: never)')
    .option('--project <id|name>', 'scope the key to this project (default: organization-wide)')
    .action(
      adminAction(finish, async (admin, name: string, o: { days?: string; project?: string }) => {
        const body: ApiKeyCreateParams = { name };
        if (o.days !== undefined) body.days_to_expire = wholeNumber(o.days, '--days', 1, 3650);
        if (o.project) body.project_id = o.project;
        printCreated(admin.json, await admin.call<CreatedApiKey>('POST', '/org/api_keys', { body }), 'created');
      }),
    );

  adminFlags(keys.command('rotate').description('replace a key with a new one; the old one keeps working for a grace period').argument('<id>', 'the key to rotate'), ORG)
    .option('--days <n>', "the new key's lifetime in days (default: the rotated key's)")
    .option('--grace-days <n>', 'how long the rotated key keeps working (default: the service\'s, 7 days)')
    .action(
      adminAction(finish, async (admin, id: string, o: { days?: string; graceDays?: string }) => {
        const body: ApiKeyRotateParams = {};
        if (o.days !== undefined) body.days_to_expire = wholeNumber(o.days, '--days', 1, 3650);
        if (o.graceDays !== undefined) body.expire_in_days = wholeNumber(o.graceDays, '--grace-days', 0, 3650);
        printCreated(admin.json, await admin.call<CreatedApiKey>('POST', `/org/api_keys/${segment(id)}/rotate`, { body }), 'rotated');
      }),
    );

  adminFlags(keys.command('rename').description('rename a key').argument('<id>', 'the key').argument('<name>', 'its new name'), ORG).action(
    adminAction(finish, async (admin, id: string, name: string) => {
      const key = await admin.call<ApiKey>('PATCH', `/org/api_keys/${segment(id)}`, { body: { name } });
      admin.print(key, (k) => `renamed API key ${k.id} to ${k.name}`);
    }),
  );

  adminFlags(keys.command('delete').description('delete a key: it stops working at once').argument('<id>', 'the key'), ORG).action(
    adminAction(finish, async (admin, id: string) => {
      await admin.call('DELETE', `/org/api_keys/${segment(id)}`);
      admin.print({ id, deleted: true }, () => `deleted API key ${id}`);
    }),
  );
}

/** The one place a key's plaintext is shown: stdout, so it can be captured; the reminder goes to stderr. */
function printCreated(json: boolean, key: CreatedApiKey, verb: 'created' | 'rotated'): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(key, null, 2)}\n`);
    return;
  }
  const scope = key.project_id ? `project ${key.project_name ?? key.project_id}` : 'organization-wide';
  const expires = key.expires_at ? `expires ${when(key.expires_at)}` : 'never expires';
  process.stdout.write(`${verb} API key ${key.name} (id ${key.id}, ${scope}, ${expires})\nBCS_API_KEY=${key.key}\n`);
  process.stderr.write('bcs: the key above is shown only once; only its hash is stored\n');
}

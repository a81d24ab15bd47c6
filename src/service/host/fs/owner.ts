// Owner and group names → numeric ids for set_file_permissions. Node has no getpwnam(), so the host's
// /etc/passwd and /etc/group are read first, then `getent` (which also asks NSS: LDAP, systemd-homed…).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { invalidField } from '../errors.js';

export type IdDatabase = 'passwd' | 'group';

/** A numeric id as given, or the id of the named user/group; an unknown name is a 400 on `field`. */
export async function lookupId(db: IdDatabase, nameOrId: string, field: string): Promise<number> {
  if (/^\d+$/.test(nameOrId)) {
    const id = Number(nameOrId);
    if (id > 0xfffffffe) throw invalidField(field, 'is not a valid id');
    return id;
  }
  const id = (await fromFile(db, nameOrId)) ?? (await fromGetent(db, nameOrId));
  if (id === undefined) throw invalidField(field, `no ${db === 'passwd' ? 'user' : 'group'} named '${nameOrId}' on this host`);
  return id;
}

async function fromFile(db: IdDatabase, name: string): Promise<number | undefined> {
  try {
    return idFromLines(await readFile(`/etc/${db}`, 'utf8'), name);
  } catch {
    return undefined;
  }
}

function fromGetent(db: IdDatabase, name: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    // execFile passes the name as one argument: no shell ever sees it.
    execFile('getent', [db, name], { timeout: 5_000 }, (err, stdout) => resolve(err ? undefined : idFromLines(stdout, name)));
  });
}

/** Both files are `name:password:id:...`. */
function idFromLines(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    const [entry, , id] = line.split(':');
    if (entry === name && id !== undefined && /^\d+$/.test(id)) return Number(id);
  }
  return undefined;
}

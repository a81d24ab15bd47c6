// The operator's secrets key (`--secrets-key-file`): what it may hold, and that it is the one key every
// process sharing a database seals and opens with, whichever form the file has.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretsBox, SecretsKeyError } from '../../src/service/secrets-box.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bcs-secrets-key-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const keyFile = async (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
};

describe('SecretsBox.fromKeyFile', () => {
  it('takes 32 bytes raw, as base64 or as hex, and they are one key', async () => {
    const key = randomBytes(32);
    const raw = SecretsBox.fromKeyFile(await keyFile('raw', key));
    const sealed = raw.seal('hunter2', 'proxy:p1:password');
    for (const [name, content] of [
      ['b64', `${key.toString('base64')}\n`],
      ['b64url', key.toString('base64url')],
      ['hex', `  ${key.toString('hex')}\n`],
    ] as const) {
      expect(SecretsBox.fromKeyFile(await keyFile(name, content)).open(sealed, 'proxy:p1:password'), name).toBe('hunter2');
    }
    // Another key opens nothing, and says which file it tried.
    const other = SecretsBox.fromKeyFile(await keyFile('other', randomBytes(32)));
    expect(() => other.open(sealed, 'proxy:p1:password')).toThrow(`does not decrypt with ${join(dir, 'other')}`);
  });

  it('refuses a missing file or one without a 32-byte key, saying how to make one', async () => {
    expect(() => SecretsBox.fromKeyFile(join(dir, 'nope'))).toThrow(SecretsKeyError);
    expect(() => SecretsBox.fromKeyFile(join(dir, 'nope'))).toThrow(`cannot read the secrets key file ${join(dir, 'nope')}: ENOENT`);
    for (const content of [randomBytes(16), randomBytes(16).toString('base64'), 'not a key at all', '']) {
      const path = await keyFile('short', content);
      expect(() => SecretsBox.fromKeyFile(path)).toThrow(`the secrets key file ${path} holds no 32-byte key (raw, base64 or hex); make one with: openssl rand -base64 32 > ${path}`);
    }
  });
});

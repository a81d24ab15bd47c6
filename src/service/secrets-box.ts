// Encryption at rest for the few secrets the service must be able to read back (proxy passwords): API keys
// are hashed instead, but a proxy password has to be sent to the proxy. AES-256-GCM with a random key kept
// in a file beside the database, so a copy of the database alone (a backup, a shared bug report) holds no
// usable secret. The key file is created on first use with mode 0600 inside the 0700 data dir; or the
// operator gives one (`--secrets-key-file`): with state in PostgreSQL, every process that serves it, on
// whatever machine, must open what another sealed, so the key travels with the deployment, not a data dir.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DomainError, unavailable } from './host/errors.js';

export const KEY_FILE = 'secrets.key';
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/** A key file given by the operator that cannot be used: refused at start, before anything is served. */
export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

/**
 * A 32-byte key from an operator's file, read now so a bad one stops the start: raw, or as base64 or hex
 * text (what `openssl rand -base64 32` or `-hex 32` writes), surrounding whitespace ignored. `what` names
 * the key in the error (the secrets key, the cluster key).
 */
export function readKeyFile(path: string, what: string): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (err) {
    throw new SecretsKeyError(`cannot read the ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const key = parseKey(content);
  if (!key) throw new SecretsKeyError(`the ${what} file ${path} holds no ${KEY_BYTES}-byte key (raw, base64 or hex); make one with: openssl rand -base64 ${KEY_BYTES} > ${path}`);
  return key;
}

export class SecretsBox {
  private key: Buffer | undefined;

  constructor(readonly keyPath: string) {}

  static forDataDir(dataDir: string): SecretsBox {
    return new SecretsBox(join(dataDir, KEY_FILE));
  }

  /**
   * The operator's key, read now so a bad one stops the start: 32 bytes raw, or as base64 or hex text (what
   * `openssl rand -base64 32` or `-hex 32` writes), surrounding whitespace ignored. Never created.
   */
  static fromKeyFile(path: string): SecretsBox {
    const box = new SecretsBox(path);
    box.key = readKeyFile(path, 'secrets key');
    return box;
  }

  /**
   * Encrypts `plaintext`. `context` (e.g. `proxy:<id>:password`) is authenticated with it, so a sealed
   * value copied onto another record does not open there.
   */
  seal(plaintext: string, context: string): string {
    const key = this.loadKey(true)!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || data === undefined) {
      throw secretUnreadable('a stored secret has an unknown format');
    }
    const key = this.loadKey(false);
    if (!key) throw secretUnreadable(`the key file ${this.keyPath} is missing, so stored secrets cannot be decrypted`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw secretUnreadable(`a stored secret does not decrypt with ${this.keyPath} (the key file was replaced?)`);
    }
  }

  /** Reads the key, creating it when `create` and there is none yet. Exclusive create settles races. */
  private loadKey(create: boolean): Buffer | undefined {
    if (this.key) return this.key;
    try {
      this.key = checkedKey(readFileSync(this.keyPath), this.keyPath);
      return this.key;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !create) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    }
    const key = randomBytes(KEY_BYTES);
    let fd: number;
    try {
      fd = openSync(this.keyPath, 'wx', 0o600);
    } catch (err) {
      // Another process created it meanwhile: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (this.key = checkedKey(readFileSync(this.keyPath), this.keyPath));
      throw err;
    }
    try {
      writeSync(fd, key);
    } finally {
      closeSync(fd);
    }
    this.key = key;
    return key;
  }
}

function parseKey(content: Buffer): Buffer | undefined {
  if (content.length === KEY_BYTES) return content;
  const text = content.toString('utf8').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  return undefined;
}

function checkedKey(key: Buffer, path: string): Buffer {
  if (key.length !== KEY_BYTES) throw secretUnreadable(`the key file ${path} is not a ${KEY_BYTES}-byte key`);
  return key;
}

function secretUnreadable(message: string): DomainError {
  return unavailable('secret_unavailable', message);
}

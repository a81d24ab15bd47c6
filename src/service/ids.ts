// Identifiers and secrets. Ids are random, URL-safe and lowercase so they read well in paths and logs.
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random id of `length` characters from [a-z0-9] (about 5.2 bits each). */
export function newId(length = 24): string {
  const bytes = randomBytes(length);
  let id = '';
  // 252 = 7 * 36: bytes at or above it are redrawn so every character is equally likely.
  for (let i = 0; id.length < length; i++) {
    if (i >= bytes.length) return id + newId(length - id.length);
    const b = bytes[i]!;
    if (b < 252) id += ALPHABET[b % 36];
  }
  return id;
}

/** A new plaintext API key. Only its hash is stored. */
export function newApiKey(): string {
  return `bcs_${randomBytes(32).toString('base64url')}`;
}

/** API keys carry 256 random bits, so a plain SHA-256 is a safe one-way store (no salt or KDF needed). */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function maskKey(key: string): string {
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}

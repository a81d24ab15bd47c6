// `--database-url` takes a PostgreSQL URL, and never a password on the command line.
import { describe, expect, it } from 'vitest';
import { databaseUrlOption } from '../../runner/cli/database-url.js';
import { UsageError } from '../../runner/cli/usage-error.js';

describe('--database-url', () => {
  it('passes a PostgreSQL URL without a password, from the command line or the environment', () => {
    expect(databaseUrlOption('postgres://bcs@db:5432/bcs', 'cli')).toBe('postgres://bcs@db:5432/bcs');
    expect(databaseUrlOption('postgresql://bcs@db/bcs?sslmode=require', 'cli')).toBe('postgresql://bcs@db/bcs?sslmode=require');
    expect(databaseUrlOption(undefined, undefined)).toBeUndefined();
  });

  it('takes a password only from BCS_DATABASE_URL, never the command line (where /proc shows it)', () => {
    expect(databaseUrlOption('postgres://bcs:s3cret@db/bcs', 'env')).toBe('postgres://bcs:s3cret@db/bcs');
    for (const url of ['postgres://bcs:s3cret@db/bcs', 'postgres://bcs@db/bcs?password=s3cret']) {
      const err = (() => {
        try {
          databaseUrlOption(url, 'cli');
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect(err!.message).toContain('BCS_DATABASE_URL');
      expect(err!.message).not.toContain('s3cret');
    }
  });

  it('refuses what is not a PostgreSQL URL, saying what it expects', () => {
    expect(() => databaseUrlOption('mysql://db/x', 'cli')).toThrow(/postgres:\/\/ or postgresql:\/\/ URL, got mysql:/);
    expect(() => databaseUrlOption('db:5432', 'cli')).toThrow(UsageError);
    expect(() => databaseUrlOption('not a url', 'env')).toThrow(/not a URL/);
  });
});

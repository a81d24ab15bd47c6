// `bcs serve --database-url`: like API keys, a database password never belongs on a command line, where
// other users read it in /proc/<pid>/cmdline. A URL with one is taken from BCS_DATABASE_URL only; on the
// command line the password comes from PGPASSWORD or ~/.pgpass (the PostgreSQL client reads both).
import { UsageError } from './usage-error.js';

export function databaseUrlOption(value: unknown, source: string | undefined): string | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--database-url: not a URL; expected postgres://user@host:5432/database`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new UsageError(`--database-url: expected a postgres:// or postgresql:// URL, got ${url.protocol}//`);
  }
  if (source === 'cli' && (url.password || /(^|&)password=/i.test(url.search.slice(1)))) {
    throw new UsageError(
      '--database-url: the URL holds a password, which other users can read from the command line; ' +
        'give the URL in BCS_DATABASE_URL instead, or the password in PGPASSWORD or ~/.pgpass',
    );
  }
  return value;
}

/**
 * The banner's line about the key sealed secrets are encrypted with: with state in PostgreSQL and a key the
 * service made in its own data dir, the state can move or be shared but its secrets cannot: said loudly.
 */
export function secretsKeyLine(service: { secretsKey: string; secretsKeyGiven: boolean }, onPostgres: boolean): string {
  if (service.secretsKeyGiven) return `bcs serve: secrets key: ${service.secretsKey} (--secrets-key-file)\n`;
  if (!onPostgres) return '';
  return (
    `bcs serve: WARNING: secrets key: ${service.secretsKey}: state is in PostgreSQL but its sealed secrets open only with this ` +
    'data dir\'s key; give every process on the database the same --secrets-key-file\n'
  );
}

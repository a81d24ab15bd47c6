// Opens the service's SQLite database and brings its schema up to date.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrations } from './migrations.js';

export type Db = Database.Database;

/** Opens `<dataDir>/service.db` (or an in-memory database for ':memory:') in WAL mode, migrated. */
export function openDatabase(dataDir: string | ':memory:'): Db {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    file = join(dataDir, 'service.db');
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** Applies every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema version ${current} is newer than this service (${migrations.length}); upgrade bcs`);
  }
  for (let version = current + 1; version <= migrations.length; version++) {
    const sql = migrations[version - 1]!;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version}`);
    })();
  }
}

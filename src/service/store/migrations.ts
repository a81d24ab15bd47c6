// Versioned schema: entry N moves the database from user_version N-1 to N. Never edit a shipped entry;
// append a new one.
export const migrations: string[] = [
  `
  CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    key_hash    TEXT NOT NULL UNIQUE,
    masked_key  TEXT NOT NULL,
    project_id  TEXT,
    created_at  TEXT NOT NULL,
    expires_at  TEXT,
    deleted_at  TEXT
  );

  CREATE TABLE browsers (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    project_id      TEXT,
    name            TEXT,
    tags            TEXT NOT NULL DEFAULT '{}',
    headless        INTEGER NOT NULL,
    stealth         INTEGER NOT NULL,
    kiosk_mode      INTEGER NOT NULL,
    timeout_seconds INTEGER NOT NULL,
    viewport        TEXT,
    start_url       TEXT,
    created_at      TEXT NOT NULL,
    deleted_at      TEXT,
    end_reason      TEXT,
    end_detail      TEXT,
    pid             INTEGER,
    user_data_dir   TEXT
  );
  -- Names are unique among active sessions of a project; the index makes that exact under races.
  CREATE UNIQUE INDEX browsers_active_name ON browsers (ifnull(project_id, ''), name)
    WHERE deleted_at IS NULL AND name IS NOT NULL;
  CREATE INDEX browsers_deleted ON browsers (deleted_at);
  `,
  // Whether the session's browser and processes run in the bubblewrap sandbox.
  `ALTER TABLE browsers ADD COLUMN sandboxed INTEGER NOT NULL DEFAULT 0;`,
];

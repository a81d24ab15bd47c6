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
  // Version 3, browser pools: each pool's config, the pool a session belongs to, and the org's limits
  // (one row). Pools are recreated and refilled from this table when the service starts.
  `
  CREATE TABLE browser_pools (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    project_id TEXT,
    name       TEXT,
    config     TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX browser_pools_name ON browser_pools (ifnull(project_id, ''), name) WHERE name IS NOT NULL;
  ALTER TABLE browsers ADD COLUMN pool_id TEXT;
  CREATE TABLE org_limits (
    id                      INTEGER PRIMARY KEY CHECK (id = 1),
    max_concurrent_sessions INTEGER,
    max_pooled_sessions     INTEGER
  );
  `,
  // Version 4, replays and their markers. Kept after the session ends (no foreign key to browsers):
  // a deleted session's videos stay listable and downloadable. Videos are <dataDir>/replays/<id>.mp4.
  `
  CREATE TABLE replays (
    id             TEXT PRIMARY KEY,
    browser_id     TEXT NOT NULL,
    source         TEXT NOT NULL,
    framerate      INTEGER NOT NULL,
    max_duration_s INTEGER NOT NULL,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    duration_ms    INTEGER,
    size_bytes     INTEGER,
    end_reason     TEXT,
    end_detail     TEXT,
    recorder_pid   INTEGER
  );
  CREATE INDEX replays_browser ON replays (browser_id, started_at);
  CREATE INDEX replays_unfinished ON replays (finished_at) WHERE finished_at IS NULL;
  CREATE TABLE replay_markers (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    replay_id  TEXT NOT NULL REFERENCES replays (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    offset_ms  INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX replay_markers_replay ON replay_markers (replay_id, offset_ms);
  `,
  // Version 5, telemetry (pools' 3 and replays' 4 come before it): captured events, kept after the session
  // ends, and each session's capture settings. Events are read by session and seq (cursor) or time window.
  `
  CREATE TABLE telemetry_events (
    browser_id TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    ts         INTEGER NOT NULL,
    category   TEXT NOT NULL,
    event      TEXT NOT NULL,
    PRIMARY KEY (browser_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX telemetry_events_ts ON telemetry_events (browser_id, ts);
  CREATE TABLE telemetry_settings (
    browser_id         TEXT PRIMARY KEY,
    categories         TEXT,
    export_destination TEXT
  );
  `,
];

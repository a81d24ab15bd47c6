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
  // Version 6, profiles and extensions. Their files live beside the database (<dataDir>/profiles/<id>/,
  // <dataDir>/extensions/<id>.zip and <id>/); names are unique per project. A session records the profile
  // it loaded; the partial unique index lets at most one active session hold a profile read-write, exactly
  // under races (the end of the session, which sets deleted_at, releases it).
  `
  CREATE TABLE profiles (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT,
    name         TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE UNIQUE INDEX profiles_name ON profiles (ifnull(project_id, ''), name) WHERE name IS NOT NULL;
  CREATE TABLE extensions (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT,
    name         TEXT,
    created_at   TEXT NOT NULL,
    size_bytes   INTEGER NOT NULL,
    checksum     TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE UNIQUE INDEX extensions_name ON extensions (ifnull(project_id, ''), name) WHERE name IS NOT NULL;
  ALTER TABLE browsers ADD COLUMN profile_id TEXT;
  ALTER TABLE browsers ADD COLUMN profile_save_changes INTEGER NOT NULL DEFAULT 0;
  CREATE UNIQUE INDEX browsers_profile_writer ON browsers (profile_id)
    WHERE deleted_at IS NULL AND profile_save_changes = 1;
  `,
  // Version 7, proxies (after profiles' and extensions' 6). Soft-deleted: sessions that use a proxy keep
  // showing its id. `config` is the public per-type config; a custom proxy's password is only ever stored
  // sealed (secrets-box.ts). Which proxy a session was given lives beside the browsers table, not in it.
  `
  CREATE TABLE proxies (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    project_id      TEXT,
    name            TEXT,
    type            TEXT NOT NULL,
    protocol        TEXT NOT NULL,
    bypass_hosts    TEXT NOT NULL DEFAULT '[]',
    config          TEXT NOT NULL DEFAULT '{}',
    password_sealed TEXT,
    status          TEXT,
    status_detail   TEXT,
    ip_address      TEXT,
    last_checked    TEXT,
    created_at      TEXT NOT NULL,
    deleted_at      TEXT
  );
  CREATE INDEX proxies_project ON proxies (ifnull(project_id, ''), deleted_at);
  CREATE TABLE browser_proxies (
    browser_id TEXT PRIMARY KEY,
    proxy_id   TEXT,
    mode       TEXT
  );
  `,
  // Version 8, API keys, projects and audit logs (independent of 6 and 7). Keys learn who created them;
  // projects are soft-deleted (a name is unique among the live ones); a project's limits are overrides of
  // the org's; the audit log keeps one row per mutating request, never a body. The organisation gets a
  // stable id once, here, so /auth/context names the same org across restarts.
  `
  ALTER TABLE api_keys ADD COLUMN created_by_id TEXT;
  ALTER TABLE api_keys ADD COLUMN created_by_name TEXT;
  CREATE INDEX api_keys_project ON api_keys (project_id);
  CREATE TABLE projects (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE UNIQUE INDEX projects_live_name ON projects (name COLLATE NOCASE) WHERE deleted_at IS NULL;
  CREATE TABLE project_limits (
    project_id                 TEXT PRIMARY KEY,
    max_concurrent_sessions    INTEGER,
    max_concurrent_invocations INTEGER
  );
  CREATE TABLE audit_logs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    ts_ms       INTEGER NOT NULL,
    timestamp   TEXT NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    route       TEXT NOT NULL,
    status      INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    client_ip   TEXT NOT NULL,
    domain      TEXT NOT NULL,
    user_agent  TEXT NOT NULL,
    api_key_id  TEXT,
    project_id  TEXT,
    request_id  TEXT NOT NULL
  );
  CREATE INDEX audit_logs_time ON audit_logs (ts_ms, seq);
  CREATE TABLE organization (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    org_id TEXT NOT NULL
  );
  INSERT INTO organization (id, org_id) VALUES (1, lower(hex(randomblob(12))));
  `,
  // Apps: deployments (the uploaded code and its build), the app versions they register, invocations of
  // their actions, and the log and state events both stream. A version is live in one running deployment
  // at a time; the unique index makes that exact under races.
  `
  CREATE TABLE deployments (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT NOT NULL UNIQUE,
    project_id          TEXT,
    status              TEXT NOT NULL,
    status_reason       TEXT,
    entrypoint_rel_path TEXT,
    env_vars            TEXT NOT NULL,
    version             TEXT NOT NULL,
    app_name            TEXT,
    source_checksum     TEXT NOT NULL,
    created_at          TEXT NOT NULL,
    updated_at          TEXT
  );
  CREATE TABLE app_versions (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    project_id    TEXT,
    deployment_id TEXT NOT NULL,
    app_name      TEXT NOT NULL,
    version       TEXT NOT NULL,
    actions       TEXT NOT NULL,
    live          INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX app_versions_live ON app_versions (ifnull(project_id, ''), app_name, version) WHERE live = 1;
  CREATE TABLE invocations (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    project_id    TEXT,
    deployment_id TEXT NOT NULL,
    app_name      TEXT NOT NULL,
    version       TEXT NOT NULL,
    action_name   TEXT NOT NULL,
    status        TEXT NOT NULL,
    status_reason TEXT,
    payload       TEXT,
    output        TEXT,
    started_at    TEXT NOT NULL,
    started_ms    INTEGER NOT NULL,
    finished_at   TEXT
  );
  CREATE INDEX invocations_status ON invocations (status);
  CREATE TABLE app_events (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    owner_id  TEXT NOT NULL,
    ts_ms     INTEGER NOT NULL,
    event     TEXT NOT NULL
  );
  CREATE INDEX app_events_owner ON app_events (owner_id, seq);
  ALTER TABLE browsers ADD COLUMN invocation_id TEXT;
  `,
  // Credentials (values and TOTP secrets sealed with the secrets box, so the database alone holds none) and
  // the organisation's external credential providers (their tokens sealed the same way).
  `
  CREATE TABLE credentials (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    id             TEXT NOT NULL UNIQUE,
    project_id     TEXT,
    name           TEXT NOT NULL,
    domain         TEXT NOT NULL,
    value_keys     TEXT NOT NULL,
    values_sealed  TEXT,
    sso_provider   TEXT,
    totp_sealed    TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
  );
  CREATE UNIQUE INDEX credentials_name ON credentials (ifnull(project_id, ''), name);
  CREATE TABLE credential_providers (
    seq               INTEGER PRIMARY KEY AUTOINCREMENT,
    id                TEXT NOT NULL UNIQUE,
    name              TEXT NOT NULL UNIQUE,
    provider_type     TEXT NOT NULL,
    token_sealed      TEXT NOT NULL,
    enabled           INTEGER NOT NULL,
    priority          INTEGER NOT NULL,
    cache_ttl_seconds INTEGER NOT NULL,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
  );
  `,
  // Managed auth: connections (their settings, status and the current login flow's state as JSON) and the
  // timeline of their logins, re-logins and health checks.
  `
  CREATE TABLE auth_connections (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    project_id  TEXT,
    domain      TEXT NOT NULL,
    profile_id  TEXT NOT NULL,
    profile_name TEXT NOT NULL,
    proxy_id    TEXT,
    settings    TEXT NOT NULL,
    status      TEXT NOT NULL,
    flow        TEXT,
    last_auth_at TEXT,
    last_auth_check_at TEXT,
    post_login_url TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  );
  CREATE UNIQUE INDEX auth_connections_pair ON auth_connections (ifnull(project_id, ''), domain, profile_name);
  CREATE TABLE auth_timeline (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    connection_id TEXT NOT NULL,
    type          TEXT NOT NULL,
    event         TEXT NOT NULL
  );
  CREATE INDEX auth_timeline_connection ON auth_timeline (connection_id, seq);
  `,
  // Site configs (our extension): per project and domain pattern, the settings that work against a site;
  // which config a browser was created with.
  `
  CREATE TABLE site_configs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    project_id  TEXT,
    domain      TEXT NOT NULL,
    settings    TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  );
  CREATE UNIQUE INDEX site_configs_domain ON site_configs (ifnull(project_id, ''), domain);
  CREATE TABLE browser_site_configs (
    browser_id     TEXT PRIMARY KEY,
    site_config_id TEXT NOT NULL
  );
  `,
  // The egress rules: a session's network.private_hosts (JSON array).
  `
  ALTER TABLE browsers ADD COLUMN private_hosts TEXT;
  `,
  // The organisation's default per-project concurrency cap, for projects without a limit of their own.
  `ALTER TABLE org_limits ADD COLUMN default_project_max_concurrent_sessions INTEGER;`,
  // A session's Chrome Enterprise policies (JSON object), as given at create.
  `ALTER TABLE browsers ADD COLUMN chrome_policy TEXT;`,
  // The browser host that runs a session (a cluster's hosts share one database); null on a single process.
  `ALTER TABLE browsers ADD COLUMN host_id TEXT;`,
  // Runs kept by the service (ours): a runner's runs (`bcs run --report-to`, scheduled runs too), each
  // scenario's result with its steps as JSON (`detail`), and the artifacts' metadata. The artifacts' bytes are
  // files in the blob dir (<blobDir>/runs/<run_id>/<artifact_id>), not rows. Tags are rows of their own so
  // a list filters on one exactly; `commit_sha` and `run_trigger` avoid the SQL keywords.
  // `run_key` and a result's `result_key` are the client's keys for retried requests (unique per project and
  // per run), each kept with a hash of the request it came with; `active_at` is the service's time of the
  // run's last create, result, artifact or finish: what a run left running by a dead runner is ended after,
  // and what retention counts from. An artifact's name is unique within its result (a retried upload).
  `
  CREATE TABLE runs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    project_id  TEXT,
    suite       TEXT NOT NULL,
    branch      TEXT,
    commit_sha  TEXT,
    tags        TEXT NOT NULL,
    run_trigger TEXT NOT NULL,
    shard_index INTEGER,
    shard_total INTEGER,
    status      TEXT NOT NULL,
    summary     TEXT,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    created_at  TEXT NOT NULL,
    run_key     TEXT,
    request_hash TEXT,
    active_at   TEXT NOT NULL
  );
  CREATE INDEX runs_listed ON runs (coalesce(project_id, ''), started_at, seq);
  CREATE UNIQUE INDEX runs_key ON runs (coalesce(project_id, ''), run_key) WHERE run_key IS NOT NULL;
  CREATE INDEX runs_running ON runs (active_at) WHERE status = 'running';
  CREATE INDEX runs_active ON runs (active_at);
  CREATE TABLE run_tags (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    tag    TEXT NOT NULL,
    PRIMARY KEY (run_id, tag)
  );
  CREATE INDEX run_tags_tag ON run_tags (tag);
  CREATE TABLE run_results (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    project_id  TEXT,
    suite       TEXT NOT NULL,
    name        TEXT NOT NULL,
    file        TEXT NOT NULL,
    status      TEXT NOT NULL,
    flaky       INTEGER NOT NULL,
    attempt     INTEGER NOT NULL,
    started_at  TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    detail      TEXT NOT NULL,
    result_key  TEXT,
    request_hash TEXT
  );
  CREATE INDEX run_results_run ON run_results (run_id, seq);
  CREATE UNIQUE INDEX run_results_key ON run_results (run_id, result_key) WHERE result_key IS NOT NULL;
  CREATE INDEX run_results_scenario ON run_results (coalesce(project_id, ''), suite, name, started_at);
  CREATE TABLE run_artifacts (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    result_id    TEXT NOT NULL REFERENCES run_results (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    name         TEXT NOT NULL,
    step_index   INTEGER,
    attempt      INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes   INTEGER NOT NULL,
    checksum     TEXT NOT NULL,
    created_at   TEXT NOT NULL
  );
  CREATE INDEX run_artifacts_run ON run_artifacts (run_id, seq);
  CREATE UNIQUE INDEX run_artifacts_name ON run_artifacts (result_id, name);
  `,
  // Monitors: deployed suites, their checks (spec and health as JSON; what the scheduler queries as columns),
  // each check's recent runs and the alerts raised. A check's rows go with it.
  `
  CREATE TABLE monitor_suites (
    id          TEXT PRIMARY KEY,
    project_id  TEXT,
    name        TEXT NOT NULL,
    version     INTEGER NOT NULL,
    settings    TEXT NOT NULL,
    bundle      TEXT NOT NULL,
    deployed_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX monitor_suites_name ON monitor_suites (coalesce(project_id, ''), name);
  CREATE TABLE monitor_checks (
    id               TEXT PRIMARY KEY,
    project_id       TEXT,
    suite            TEXT NOT NULL,
    name             TEXT NOT NULL,
    spec             TEXT NOT NULL,
    paused           INTEGER NOT NULL,
    health           TEXT NOT NULL,
    due_at           TEXT,
    next_run_at      TEXT,
    attempt          INTEGER NOT NULL,
    due_reason       TEXT NOT NULL,
    running_since    TEXT,
    running_owner    TEXT,
    last_run_at      TEXT,
    last_run_id      TEXT,
    last_duration_ms INTEGER
  );
  CREATE UNIQUE INDEX monitor_checks_name ON monitor_checks (coalesce(project_id, ''), suite, name);
  CREATE INDEX monitor_checks_due ON monitor_checks (due_at) WHERE running_since IS NULL AND paused = 0;
  CREATE TABLE monitor_check_runs (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    check_id    TEXT NOT NULL REFERENCES monitor_checks (id) ON DELETE CASCADE,
    run_id      TEXT,
    status      TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    started_at  TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    message     TEXT
  );
  CREATE INDEX monitor_check_runs_check ON monitor_check_runs (check_id, started_at);
  CREATE TABLE monitor_alerts (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    check_id   TEXT NOT NULL REFERENCES monitor_checks (id) ON DELETE CASCADE,
    project_id TEXT,
    kind       TEXT NOT NULL,
    at         TEXT NOT NULL,
    muted      INTEGER NOT NULL,
    run_id     TEXT,
    deliveries TEXT NOT NULL
  );
  CREATE INDEX monitor_alerts_listed ON monitor_alerts (coalesce(project_id, ''), at);
  CREATE INDEX monitor_alerts_check ON monitor_alerts (check_id, seq);
  `,
  // Kept browsers (POST /browsers/{id}/keep): until when and why, one row per browser (keeping it again
  // replaces it). The row stays after the session ends, so its record still says it was kept and why.
  `
  CREATE TABLE browser_keeps (
    browser_id TEXT PRIMARY KEY,
    until      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    kept_at    TEXT NOT NULL
  );
  `,
];

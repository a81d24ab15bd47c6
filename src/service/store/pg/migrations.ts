// PostgreSQL's versioned schema: entry N moves the database from version N-1 to N (bcs_schema_version).
// Never edit a shipped entry; append a new one. Entry 1 is the SQLite schema as it stood when PostgreSQL
// joined (sqlite/migrations.ts 1..n): the same tables, columns and unique indexes, so one repository
// serves both. Flags stay 0/1 integers and times ISO text, as the repositories read them.
export const pgMigrations: string[] = [
  `
  CREATE TABLE organization (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    org_id TEXT NOT NULL
  );

  CREATE TABLE projects (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('active', 'archived')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    deleted_at TEXT
  );
  CREATE UNIQUE INDEX projects_live_name ON projects (lower(name)) WHERE deleted_at IS NULL;

  CREATE TABLE api_keys (
    -- Storage order, which SQLite's rowid gives there: lists break ties (same created_at) by it.
    seq             BIGINT GENERATED ALWAYS AS IDENTITY,
    id              TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    key_hash        TEXT NOT NULL UNIQUE,
    masked_key      TEXT NOT NULL,
    project_id      TEXT,
    created_at      TEXT NOT NULL,
    expires_at      TEXT,
    deleted_at      TEXT,
    created_by_id   TEXT,
    created_by_name TEXT
  );
  CREATE INDEX api_keys_project ON api_keys (project_id);

  CREATE TABLE org_limits (
    id                                      INTEGER PRIMARY KEY CHECK (id = 1),
    max_concurrent_sessions                 INTEGER,
    max_pooled_sessions                     INTEGER,
    default_project_max_concurrent_sessions INTEGER
  );

  CREATE TABLE project_limits (
    project_id                 TEXT PRIMARY KEY,
    max_concurrent_sessions    INTEGER,
    max_concurrent_invocations INTEGER
  );

  CREATE TABLE browsers (
    seq                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                   TEXT NOT NULL UNIQUE,
    project_id           TEXT,
    name                 TEXT,
    tags                 TEXT NOT NULL DEFAULT '{}',
    headless             INTEGER NOT NULL,
    stealth              INTEGER NOT NULL,
    kiosk_mode           INTEGER NOT NULL,
    timeout_seconds      INTEGER NOT NULL,
    viewport             TEXT,
    start_url            TEXT,
    created_at           TEXT NOT NULL,
    deleted_at           TEXT,
    end_reason           TEXT,
    end_detail           TEXT,
    pid                  INTEGER,
    user_data_dir        TEXT,
    sandboxed            INTEGER NOT NULL DEFAULT 0,
    pool_id              TEXT,
    profile_id           TEXT,
    profile_save_changes INTEGER NOT NULL DEFAULT 0,
    invocation_id        TEXT,
    private_hosts        TEXT,
    chrome_policy        TEXT
  );
  CREATE UNIQUE INDEX browsers_active_name ON browsers (coalesce(project_id, ''), name)
    WHERE deleted_at IS NULL AND name IS NOT NULL;
  CREATE UNIQUE INDEX browsers_profile_writer ON browsers (profile_id)
    WHERE deleted_at IS NULL AND profile_save_changes = 1;
  CREATE INDEX browsers_deleted ON browsers (deleted_at);

  CREATE TABLE browser_pools (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    project_id TEXT,
    name       TEXT,
    config     TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX browser_pools_name ON browser_pools (coalesce(project_id, ''), name) WHERE name IS NOT NULL;

  CREATE TABLE replays (
    id             TEXT PRIMARY KEY,
    browser_id     TEXT NOT NULL,
    source         TEXT NOT NULL,
    framerate      INTEGER NOT NULL,
    max_duration_s INTEGER NOT NULL,
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    duration_ms    BIGINT,
    size_bytes     BIGINT,
    end_reason     TEXT,
    end_detail     TEXT,
    recorder_pid   INTEGER
  );
  CREATE INDEX replays_browser ON replays (browser_id, started_at);
  CREATE INDEX replays_unfinished ON replays (finished_at) WHERE finished_at IS NULL;

  CREATE TABLE replay_markers (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    replay_id  TEXT NOT NULL REFERENCES replays (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    offset_ms  BIGINT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX replay_markers_replay ON replay_markers (replay_id, offset_ms);

  CREATE TABLE telemetry_events (
    browser_id TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    ts         BIGINT NOT NULL,
    category   TEXT NOT NULL,
    event      TEXT NOT NULL,
    PRIMARY KEY (browser_id, seq)
  );
  CREATE INDEX telemetry_events_ts ON telemetry_events (browser_id, ts);

  CREATE TABLE telemetry_settings (
    browser_id         TEXT PRIMARY KEY,
    categories         TEXT,
    export_destination TEXT
  );

  CREATE TABLE profiles (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT,
    name         TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE UNIQUE INDEX profiles_name ON profiles (coalesce(project_id, ''), name) WHERE name IS NOT NULL;

  CREATE TABLE extensions (
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    project_id   TEXT,
    name         TEXT,
    created_at   TEXT NOT NULL,
    size_bytes   BIGINT NOT NULL,
    checksum     TEXT NOT NULL,
    last_used_at TEXT
  );
  CREATE UNIQUE INDEX extensions_name ON extensions (coalesce(project_id, ''), name) WHERE name IS NOT NULL;

  CREATE TABLE proxies (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
  CREATE INDEX proxies_project ON proxies (coalesce(project_id, ''), deleted_at);

  CREATE TABLE browser_proxies (
    browser_id TEXT PRIMARY KEY,
    proxy_id   TEXT,
    mode       TEXT
  );

  CREATE TABLE audit_logs (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    ts_ms       BIGINT NOT NULL,
    timestamp   TEXT NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    route       TEXT NOT NULL,
    status      INTEGER NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    client_ip   TEXT NOT NULL,
    domain      TEXT NOT NULL,
    user_agent  TEXT NOT NULL,
    api_key_id  TEXT,
    project_id  TEXT,
    request_id  TEXT NOT NULL
  );
  CREATE INDEX audit_logs_time ON audit_logs (ts_ms, seq);

  CREATE TABLE deployments (
    seq                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    project_id    TEXT,
    deployment_id TEXT NOT NULL,
    app_name      TEXT NOT NULL,
    version       TEXT NOT NULL,
    actions       TEXT NOT NULL,
    live          INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX app_versions_live ON app_versions (coalesce(project_id, ''), app_name, version) WHERE live = 1;

  CREATE TABLE invocations (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    started_ms    BIGINT NOT NULL,
    finished_at   TEXT
  );
  CREATE INDEX invocations_status ON invocations (status);

  CREATE TABLE app_events (
    seq      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id TEXT NOT NULL,
    ts_ms    BIGINT NOT NULL,
    event    TEXT NOT NULL
  );
  CREATE INDEX app_events_owner ON app_events (owner_id, seq);

  CREATE TABLE credentials (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    project_id    TEXT,
    name          TEXT NOT NULL,
    domain        TEXT NOT NULL,
    value_keys    TEXT NOT NULL,
    values_sealed TEXT,
    sso_provider  TEXT,
    totp_sealed   TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
  );
  CREATE UNIQUE INDEX credentials_name ON credentials (coalesce(project_id, ''), name);

  CREATE TABLE credential_providers (
    seq               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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

  CREATE TABLE auth_connections (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                 TEXT NOT NULL UNIQUE,
    project_id         TEXT,
    domain             TEXT NOT NULL,
    profile_id         TEXT NOT NULL,
    profile_name       TEXT NOT NULL,
    proxy_id           TEXT,
    settings           TEXT NOT NULL,
    status             TEXT NOT NULL,
    flow               TEXT,
    last_auth_at       TEXT,
    last_auth_check_at TEXT,
    post_login_url     TEXT,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL
  );
  CREATE UNIQUE INDEX auth_connections_pair ON auth_connections (coalesce(project_id, ''), domain, profile_name);

  CREATE TABLE auth_timeline (
    seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id            TEXT NOT NULL UNIQUE,
    connection_id TEXT NOT NULL,
    type          TEXT NOT NULL,
    event         TEXT NOT NULL
  );
  CREATE INDEX auth_timeline_connection ON auth_timeline (connection_id, seq);

  CREATE TABLE site_configs (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    project_id TEXT,
    domain     TEXT NOT NULL,
    settings   TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX site_configs_domain ON site_configs (coalesce(project_id, ''), domain);

  CREATE TABLE browser_site_configs (
    browser_id     TEXT PRIMARY KEY,
    site_config_id TEXT NOT NULL
  );
  `,
  // A cluster: the browser hosts that share this database, and which of them runs each session. Times
  // are the database's own clock (now()), so hosts on machines whose clocks differ agree on who is late.
  `
  ALTER TABLE browsers ADD COLUMN host_id TEXT;
  CREATE INDEX browsers_active_host ON browsers (host_id) WHERE deleted_at IS NULL;

  CREATE TABLE hosts (
    id            TEXT PRIMARY KEY,
    url           TEXT NOT NULL,
    max_sessions  INTEGER,
    sessions      INTEGER NOT NULL DEFAULT 0,
    queued        INTEGER NOT NULL DEFAULT 0,
    standby_ready INTEGER NOT NULL DEFAULT 0,
    draining      INTEGER NOT NULL DEFAULT 0,
    leader        INTEGER NOT NULL DEFAULT 0,
    started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    gone_at       TIMESTAMPTZ
  );
  `,
  // Runs kept by the service (ours), as SQLite's entry of the same name: a runner's runs (`bcs run --report-to`, scheduled runs too), each
  // scenario's result with its steps as JSON (`detail`), and the artifacts' metadata. The artifacts' bytes are
  // files in the blob dir (<blobDir>/runs/<run_id>/<artifact_id>), not rows. Tags are rows of their own so
  // a list filters on one exactly; `commit_sha` and `run_trigger` avoid the SQL keywords.
  // `run_key` and a result's `result_key` are the client's keys for retried requests (unique per project and
  // per run), each kept with a hash of the request it came with; `active_at` is the service's time of the
  // run's last create, result, artifact or finish: what a run left running by a dead runner is ended after,
  // and what retention counts from. An artifact's name is unique within its result (a retried upload).
  `
  CREATE TABLE runs (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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

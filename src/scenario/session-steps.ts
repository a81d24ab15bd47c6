// How a scenario gets its browser and gives it back, and what is recorded around its steps: the implicit
// setup and teardown steps (log in an auth connection, create or lease the browser, start and save the
// replay, collect telemetry, delete or release the browser) and the replay marker each step carries.
import { authSetup } from './auth-step.js';
import { durationAt } from './duration.js';
import type { DataPath } from './path.js';
import type { Operation, PlanStep, SourceLocation } from './plan.js';

type Obj = Record<string, unknown>;
type StepDraft = Omit<PlanStep, 'index'>;

export interface SessionOptions {
  browser?: Obj;
  replay?: { record: boolean; framerate?: number };
  telemetry?: boolean | { console?: boolean; network?: boolean };
}

const CREATE_BROWSER_TIMEOUT_MS = 60_000;
const RELEASE_TIMEOUT_MS = 30_000;
const DEFAULT_ACQUIRE_MS = 30_000;
const REPLAY_SAVE_TIMEOUT_MS = 60_000;
const TELEMETRY_TIMEOUT_MS = 30_000;
/** With a pool, the browser's configuration is the pool's; a lease may only name, tag and point it. */
const LEASE_FIELDS = ['pool', 'acquire_timeout', 'name', 'tags', 'start_url'];
/** What a browser loads at launch: a pool's browsers are launched before any lease, from the pool's own settings. */
const LAUNCH_RESOURCES = ['profile', 'extensions', 'proxy', 'proxy_id'];

const SESSION = '/browsers/{{ session.session_id }}';
const REPLAY = `${SESSION}/replays/{{ replay.replay_id }}`;

export interface SessionSteps {
  setup: StepDraft[];
  /** In order: save the replay, collect telemetry, then give the browser back. */
  teardown: StepDraft[];
  recording: boolean;
}

export function sessionSteps(
  o: SessionOptions,
  source: (at: DataPath, which?: 'key' | 'value') => SourceLocation,
  report: (at: DataPath, message: string) => void,
): SessionSteps {
  const browser = o.browser ?? {};
  const at = source(o.browser !== undefined ? ['browser'] : ['name'], 'key');
  const telemetry = telemetryConfig(o.telemetry);
  const setup: StepDraft[] = [];
  const teardown: StepDraft[] = [];
  const recording = o.replay?.record === true;

  const pool = typeof browser.pool === 'string' ? browser.pool : undefined;
  if (pool === undefined) {
    if (browser.acquire_timeout !== undefined) report(['browser', 'acquire_timeout'], "'acquire_timeout' applies only with 'pool'");
    if (browser.proxy !== undefined && browser.proxy_id !== undefined) {
      report(['browser', 'proxy_id'], "use 'proxy' or the deprecated 'proxy_id', not both");
    }
    const body: Obj = { ...browser };
    delete body.acquire_timeout;
    if (telemetry) body.telemetry = telemetry;
    if (browser.auth !== undefined) {
      const auth = authSetup(browser, source, report);
      setup.push(auth.step);
      delete body.auth;
      body.profile = auth.profile;
    }
    setup.push({
      phase: 'setup', kind: 'browser', name: 'create browser', source: at, timeout_ms: CREATE_BROWSER_TIMEOUT_MS,
      operations: [{ op: 'acquire_browser', body, save: 'session' }, connect()],
    });
  } else {
    for (const key of Object.keys(browser)) {
      if (key === 'auth') {
        report(['browser', key], "'auth' cannot be combined with 'pool': a pool's browsers were launched with the pool's own profile, so a lease cannot start logged in; drop 'pool' to create a browser from the connection's profile");
      } else if (LAUNCH_RESOURCES.includes(key)) {
        report(['browser', key], `'${key}' cannot be set on a lease: a pool's browsers load their ${key.replace('_id', '')} from the pool's configuration (set it when the pool is created), or drop 'pool' to create a browser with it`);
      } else if (!LEASE_FIELDS.includes(key)) {
        report(['browser', key], `'${key}' comes from the pool's configuration; with 'pool' only ${LEASE_FIELDS.slice(1).join(', ')} apply`);
      }
    }
    const waitMs = browser.acquire_timeout !== undefined ? durationAt(browser.acquire_timeout, ['browser', 'acquire_timeout'], report) : DEFAULT_ACQUIRE_MS;
    const lease: Obj = { acquire_timeout_seconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    for (const key of ['name', 'tags', 'start_url']) if (browser[key] !== undefined) lease[key] = browser[key];
    if (telemetry) lease.telemetry = telemetry;
    setup.push({
      phase: 'setup', kind: 'browser', name: `lease a browser from pool ${pool}`, source: at,
      timeout_ms: waitMs + CREATE_BROWSER_TIMEOUT_MS,
      operations: [{ op: 'acquire_browser', pool, acquire_timeout_ms: waitMs, body: lease, save: 'session' }, connect()],
    });
    teardown.push({
      phase: 'teardown', kind: 'release', name: `release browser to pool ${pool}`, source: at, timeout_ms: RELEASE_TIMEOUT_MS,
      operations: [{ op: 'disconnect' }, { op: 'release_browser', pool }],
    });
  }
  if (pool === undefined) {
    teardown.push({
      phase: 'teardown', kind: 'release', name: 'delete browser', source: at, timeout_ms: RELEASE_TIMEOUT_MS,
      operations: [{ op: 'disconnect' }, { op: 'release_browser' }],
    });
  }

  if (recording) {
    const replayAt = source(['replay'], 'key');
    setup.push({
      phase: 'setup', kind: 'replay', name: 'start recording', source: replayAt, timeout_ms: RELEASE_TIMEOUT_MS,
      operations: [
        { op: 'api', method: 'POST', path: `${SESSION}/replays`, body: o.replay?.framerate ? { framerate: o.replay.framerate } : {}, save: 'replay', replay: 'start' },
      ],
    });
    teardown.unshift({
      phase: 'teardown', kind: 'replay_stop', name: 'save the recording', source: replayAt, timeout_ms: REPLAY_SAVE_TIMEOUT_MS,
      operations: [
        { op: 'api', method: 'POST', path: `${REPLAY}/stop`, replay: 'stop' },
        // 202 while the video is still being finalised.
        {
          op: 'poll', method: 'GET', path: REPLAY, response: 'bytes', until: [], interval_ms: 200, pending_status: [202],
          waiting_for: 'the replay video', artifact: { type: 'video', file: 'replay.mp4' },
        },
        { op: 'api', method: 'GET', path: `${REPLAY}/markers.vtt`, response: 'bytes', artifact: { type: 'file', file: 'replay.vtt' }, replay: 'markers_vtt' },
      ],
    });
  }
  if (telemetry) {
    teardown.splice(recording ? 1 : 0, 0, {
      phase: 'teardown', kind: 'telemetry', name: 'collect telemetry', source: source(['telemetry'], 'key'),
      timeout_ms: TELEMETRY_TIMEOUT_MS,
      operations: [
        {
          op: 'attach_telemetry', path: `${SESSION}/telemetry/events`,
          query: { category: Object.keys(telemetry.browser).join(','), since: '{{ run.started_at }}', limit: '100' },
        },
      ],
    });
  }
  return { setup, teardown, recording };
}

/** The replay marker a step starts with; its response's offset is the step's place in the video. */
export function markerOperation(name: string): Operation {
  return { op: 'api', method: 'POST', path: `${REPLAY}/markers`, body: { name }, replay: 'marker' };
}

function connect(): Operation {
  return { op: 'connect', ws_url: '{{ session.cdp_ws_url }}' };
}

/** The `telemetry` field of a browser create or lease, from the scenario's `telemetry` option. */
function telemetryConfig(t: SessionOptions['telemetry']): { enabled: true; browser: Record<string, { enabled: true }> } | undefined {
  if (!t) return undefined;
  const categories = t === true ? ['console', 'network'] : (['console', 'network'] as const).filter((c) => t[c]);
  if (!categories.length) return undefined;
  return { enabled: true, browser: Object.fromEntries(categories.map((c) => [c, { enabled: true }])) };
}

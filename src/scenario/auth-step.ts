// `browser: { auth: CONNECTION }`: a browser that starts logged in. The connection is made sure of in a
// setup step of its own ahead of the create (a login flow run and followed when it needs one), and the
// create then starts from the connection's profile, read-only: the profile belongs to the connection,
// whose logins and health checks write it, so a scenario must not save its own changes into it.
import { durationAt } from './duration.js';
import type { DataPath } from './path.js';
import type { AuthConnectionRef, PlanStep, SourceLocation } from './plan.js';

type Obj = Record<string, unknown>;
type StepDraft = Omit<PlanStep, 'index'>;

/**
 * A login may wait for a person to complete it; the service ends such a flow after 10 minutes (EXPIRED),
 * which must come first, so the step reports the flow's own ending rather than a bare timeout.
 */
const DEFAULT_AUTH_TIMEOUT_MS = 15 * 60_000;

/** The connection, under a name no scenario variable can have (names are letters, digits and _). */
export const AUTH_SAVE = 'auth-connection';

export interface AuthSetup {
  step: StepDraft;
  /** What the create body gets instead of `auth`. */
  profile: { name: string; save_changes: false };
}

/** The setup step for `browser.auth` (its shape already checked by the schema) and the profile the create takes. */
export function authSetup(
  browser: Obj,
  source: (at: DataPath, which?: 'key' | 'value') => SourceLocation,
  report: (at: DataPath, message: string) => void,
): AuthSetup {
  const at: DataPath = ['browser', 'auth'];
  if (browser.profile !== undefined) {
    report(at, "'auth' cannot be combined with 'profile': the browser starts from the auth connection's own profile (read-only); drop 'profile'");
  }
  const written = browser.auth;
  const o: Obj = typeof written === 'string' ? { id: written } : (written as Obj);
  let connection: AuthConnectionRef;
  let label: string;
  if (typeof o.id === 'string') {
    for (const key of ['domain', 'profile']) {
      if (o[key] !== undefined) report([...at, key], `'${key}' is for finding the connection without its id; with 'id', leave it out`);
    }
    connection = { id: o.id };
    label = `auth connection ${o.id}`;
  } else {
    connection = { domain: String(o.domain), profile_name: String(o.profile) };
    label = `the auth connection for ${connection.domain} (profile ${connection.profile_name})`;
  }
  const timeoutMs = o.timeout !== undefined ? durationAt(o.timeout, [...at, 'timeout'], report) : DEFAULT_AUTH_TIMEOUT_MS;
  return {
    step: {
      phase: 'setup', kind: 'auth', name: `make sure ${label} is logged in`, source: source(at, 'key'), timeout_ms: timeoutMs,
      operations: [{ op: 'auth', connection, save: AUTH_SAVE }],
    },
    profile: { name: `{{ ${AUTH_SAVE}.profile_name }}`, save_changes: false },
  };
}

// What a monitor tells people: one alert, whatever channel carries it. Everything a person on call needs to
// start is in it: which check, since when, the run, the failing step's screenshot, the replay at its marker,
// and the browser kept at the failing step when the check keeps one.

export type AlertKind = 'failing' | 'recovered' | 'reminder' | 'degraded';

export interface AlertCheck {
  id: string;
  name: string;
  suite: string;
  /** The scenario file, relative to the deployed folder. */
  file: string;
}

export interface AlertFailure {
  /** The failing step, as the report names it ("click 'Pay'"). */
  step?: string;
  message: string;
  screenshot_url?: string;
  /** The replay, seeking to the failing step's marker. */
  replay_url?: string;
  trace_url?: string;
}

export interface AlertKeptSession {
  session_id: string;
  live_view_url: string;
  /** When the kept browser is ended unless someone releases it first. */
  until: string;
}

export interface Alert {
  /** Unique per alert; a receiver drops one it has seen (deliveries are retried). */
  id: string;
  kind: AlertKind;
  check: AlertCheck;
  /** The check's state after the run that raised the alert. */
  status: 'passing' | 'failing' | 'degraded';
  consecutive_failures: number;
  /** When the check started failing (null once it passes). */
  failing_since: string | null;
  /** The run that raised it (absent when a run could not even start). */
  run?: { id: string; url: string; console_url: string; duration_ms: number };
  failure?: AlertFailure;
  kept_session?: AlertKeptSession;
  /** One line for a subject, a Slack message's fallback or a PagerDuty summary. */
  summary: string;
  at: string;
}

/** A channel as the sender gets it: secrets already resolved (the deployed config names them, never holds them). */
export type Channel =
  | { type: 'webhook'; name: string; url: string; secret?: string }
  | { type: 'slack'; name: string; url: string }
  | {
      type: 'email';
      name: string;
      smtp: { host: string; port: number; secure: boolean; user?: string; password?: string };
      from: string;
      to: string[];
    }
  | { type: 'pagerduty'; name: string; url: string; routing_key: string };

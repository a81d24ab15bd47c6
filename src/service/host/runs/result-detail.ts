// What a result keeps beside its indexed columns (the `detail` JSON): everything of the wire's result that only
// a reader of that one result needs, stored as sent so an answer gives it back as it came.
import type { RunResultParams, RunStep } from '../../../api/types.js';

export type StoredStep = RunStep;

export type StoredDetail = Pick<RunResultParams, 'tags' | 'steps' | 'previous_attempts' | 'interrupted' | 'hook' | 'session_id' | 'trace' | 'replay' | 'timed_out' | 'kept_session'>;

/** The detail of a result sent as `p`. */
export function detailOf(p: RunResultParams): StoredDetail {
  const { name: _name, file: _file, status: _status, flaky: _flaky, attempt: _attempt, started_at: _started, duration_ms: _duration, ...detail } = p;
  return { ...detail, tags: p.tags ?? [], previous_attempts: p.previous_attempts ?? [] };
}

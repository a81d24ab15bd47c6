// `web_server:` compiled to a setup step that starts the app under test and a teardown step that stops
// it, whatever happened in between (runner/exec/web-server.ts does the process work).

import path from 'node:path';
import { durationAt } from './duration.js';
import type { DataPath } from './path.js';
import type { PlanStep, SourceLocation, WebServerOptions } from './plan.js';

type Obj = Record<string, unknown>;
type StepDraft = Omit<PlanStep, 'index'>;

const DEFAULT_START_MS = 60_000;
/** Above the server's own start timeout, so that one (with the server's output) is what reports. */
const START_HEADROOM_MS = 5_000;
/** SIGTERM, a grace period, then SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;

export function webServerSteps(
  o: Obj,
  scenarioDir: string,
  source: (at: DataPath, which?: 'key' | 'value') => SourceLocation,
  report: (at: DataPath, message: string) => void,
): { setup: StepDraft; teardown: StepDraft } {
  const options: WebServerOptions = {
    command: String(o.command),
    url: String(o.url),
    timeout_ms: o.timeout !== undefined ? durationAt(o.timeout, ['web_server', 'timeout'], report) : DEFAULT_START_MS,
    cwd: path.resolve(scenarioDir, typeof o.cwd === 'string' ? o.cwd : '.'),
  };
  if (o.env !== null && typeof o.env === 'object') {
    options.env = Object.fromEntries(Object.entries(o.env as Obj).map(([k, v]) => [k, String(v)]));
  }
  if (o.reuse_existing === true) options.reuse_existing = true;
  const at = source(['web_server'], 'key');
  const command = options.command.length > 60 ? `${options.command.slice(0, 59)}…` : options.command;
  return {
    setup: {
      phase: 'setup', kind: 'web_server', name: `start web server: ${command}`, source: at,
      timeout_ms: options.timeout_ms + START_HEADROOM_MS,
      operations: [{ op: 'web_server', save: 'web_server', ...options }],
    },
    teardown: {
      phase: 'teardown', kind: 'web_server_stop', name: 'stop web server', source: at, timeout_ms: STOP_TIMEOUT_MS,
      operations: [{ op: 'web_server_stop' }],
    },
  };
}

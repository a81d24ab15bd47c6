// A session's Chromium exiting when nobody asked it to is an event of the system category (service_crashed).
import { expectedExit, type LiveSession } from '../session/index.js';
import type { Emit } from './event-record.js';

/** Watches the session's current Chromium; a restart's new one is watched by calling this again. */
export function watchChromiumExit(session: LiveSession, emit: Emit): void {
  const { chromium } = session;
  void chromium.exited.then((info) => {
    if (expectedExit(session, chromium)) return;
    const how = info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`;
    const said = chromium.stderrTail().trim().split('\n').slice(-1)[0]?.slice(0, 300);
    emit(session.id, 'system', 'service_crashed', { kind: 'local_process', event: 'chromium_exit' }, {
      phase: 'running',
      service_name: 'chromium',
      pid: chromium.pid,
      exit_code: info.code,
      signal: info.signal,
      reason: `chromium ${how}${said ? ` (last output: ${said})` : ''}`,
    });
  });
}

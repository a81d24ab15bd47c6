// The connection category: clients of the browser and live views coming and going, each recorded as an
// event and as a line of the session's `service` log.
import type { ClientConnectionEvents, ClientProtocol } from '../session/index.js';
import type { LiveViewEvents } from '../live/index.js';
import type { Emit } from './event-record.js';

/** How the session log names a client of each protocol. */
const CLIENT_NAMES: Record<ClientProtocol, string> = { cdp: 'CDP', bidi: 'WebDriver BiDi' };

type SessionLog = (sessionId: string, message: string) => void;

/**
 * Client connections to the browser. A BiDi client is, underneath, a CDP client the service runs for it,
 * so it is reported with the same events, told apart by their source.
 */
export function clientConnectionEvents(emit: Emit, sessionLog: SessionLog): ClientConnectionEvents {
  return {
    connected: (id, protocol) => {
      emit(id, 'connection', 'cdp_connect', { kind: 'kernel_api', event: `${protocol}_proxy` });
      sessionLog(id, `${CLIENT_NAMES[protocol]} client connected`);
    },
    disconnected: (id, info, protocol) => {
      emit(id, 'connection', 'cdp_disconnect', { kind: 'kernel_api', event: `${protocol}_proxy` }, { ...info });
      sessionLog(id, `${CLIENT_NAMES[protocol]} client disconnected: ${info.reason} after ${info.duration_ms} ms, ${info.message_count} messages`);
    },
  };
}

/** Live view connections, as the hosted service reports them. */
export function liveViewEvents(emit: Emit, sessionLog: SessionLog): LiveViewEvents {
  return {
    connected: (id, { mode }) => {
      emit(id, 'connection', 'live_view_connect', { kind: 'kernel_api', event: 'live_view' }, { mode });
      sessionLog(id, `live view opened (${mode})`);
    },
    disconnected: (id, info) => {
      emit(id, 'connection', 'live_view_disconnect', { kind: 'kernel_api', event: 'live_view' }, { ...info });
      sessionLog(id, `live view closed: ${info.reason} after ${info.duration_ms} ms, ${info.input_count} inputs`);
    },
  };
}

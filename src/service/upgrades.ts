// The service's WebSocket endpoints on its HTTP port: a session's CDP and BiDi sockets and its live view.
// A cluster host first checks the socket comes from a replica (host-guard.ts); then the token in the URL or
// an API key admits it, a project-scoped key only to its own project's browsers, as over HTTP.
import type { Server } from 'node:http';
import { bearerToken } from './auth.js';
import { notFromReplica, type HostGuard } from './cluster/host-guard.js';
import { rawErrorAnswer } from './errors.js';
import type { LiveViews } from './host/live/index.js';
import { liveViewPath } from './host/live/index.js';
import { handleBrowserUpgrade, upgradeTarget, type CdpTokens, type SessionManager } from './host/session/index.js';
import type { TelemetryHub } from './host/telemetry/index.js';
import type { ApiKeysRepo } from './store/api-keys-repo.js';
import type { BrowsersRepo } from './store/browsers-repo.js';

export interface UpgradeDeps {
  /** A cluster host's guard (host-guard.ts); undefined for a single process. */
  guard: HostGuard | undefined;
  keys: ApiKeysRepo;
  browsers: BrowsersRepo;
  sessions: SessionManager;
  tokens: CdpTokens;
  telemetry: TelemetryHub;
  liveViews: LiveViews;
  now: () => Date;
  logError: (obj: object, msg: string) => void;
}

export function serveUpgrades(server: Server, deps: UpgradeDeps): void {
  const { keys, browsers, now, liveViews, guard } = deps;
  const clientDeps = { sessions: deps.sessions, tokens: deps.tokens, connections: deps.telemetry.connections };
  server.on('upgrade', (req, socket, head) => {
    if (guard && !guard(req.headers, req.socket.remoteAddress)) return void socket.end(rawErrorAnswer(403, notFromReplica));
    // A stray header such as `Bearer` alone must not throw inside the upgrade event.
    if (req.headers.authorization && !bearerToken(req.headers.authorization)) delete req.headers.authorization;
    const live = liveViewPath(req.url);
    const sessionId = live?.sessionId ?? upgradeTarget(req.url)?.sessionId;
    const isValidApiKey = async (key: string) => {
      const record = await keys.authenticate(key, now());
      if (!record) return false;
      if (record.project_id === null) return true;
      // The session's record, ended ones included: a key of its project is told the browser is gone (404), not refused.
      return sessionId !== undefined && (await browsers.get(sessionId))?.project_id === record.project_id;
    };
    // Admission now waits on the store; whatever goes wrong there ends this socket, never the process.
    const failed = (err: unknown) => {
      deps.logError({ err }, 'a WebSocket upgrade failed');
      socket.destroy();
    };
    if (live) return void liveViews.admit(live, req, socket, head, { bearer: bearerToken(req.headers.authorization), isValidApiKey }).catch(failed);
    handleBrowserUpgrade({ ...clientDeps, isValidApiKey }, req, socket, head).catch(failed);
  });
}

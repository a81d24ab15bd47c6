// The WebSocket endpoints of a session's browser on the service's own port: one admission check
// (client-admission.ts), then the protocol the path names, CDP (cdp-proxy.ts) or WebDriver BiDi
// (bidi-proxy.ts). Anything else that asks to upgrade is a plain 404.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { serveBidi } from './bidi-proxy.js';
import { proxyCdp } from './cdp-proxy.js';
import { admitClient, rejectUpgrade, upgradeTarget, type BrowserClientDeps } from './client-admission.js';

/** Handles an HTTP upgrade; answers plain HTTP errors for anything that is not an authorised client. */
export async function handleBrowserUpgrade(deps: BrowserClientDeps, req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
  const target = upgradeTarget(req.url);
  if (!target) return rejectUpgrade(client, 404, 'not_found', `no WebSocket route ${(req.url ?? '/').split('?')[0]!.replace(/\/jwt\/[^/]*/, '/jwt/REDACTED')}`);
  const session = await admitClient(deps, req, client, target.sessionId, target.pathToken);
  if (!session) return;
  if (target.protocol === 'bidi') serveBidi(deps, req, client as Socket, head, session);
  else proxyCdp(deps, req, client as Socket, head, session, target.targetPath);
}

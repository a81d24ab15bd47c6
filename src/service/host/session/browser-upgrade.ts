// The WebSocket endpoints of a session's browser on the service's own port: one admission check
// (client-admission.ts), then the protocol the path names. Anything else that asks to upgrade is a 404.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { proxyCdp } from './cdp-proxy.js';
import { admitClient, rejectUpgrade, upgradeTarget, type BrowserClientDeps } from './client-admission.js';

/** Handles an HTTP upgrade; answers plain HTTP errors for anything that is not an authorised client. */
export function handleBrowserUpgrade(deps: BrowserClientDeps, req: IncomingMessage, client: Duplex, head: Buffer): void {
  const target = upgradeTarget(req.url);
  const path = (req.url ?? '/').split('?')[0];
  if (!target || target.protocol !== 'cdp') return rejectUpgrade(client, 404, 'not_found', `no WebSocket route ${path}`);
  const session = admitClient(deps, req, client, target.sessionId);
  if (!session) return;
  proxyCdp(deps, req, client as Socket, head, session);
}

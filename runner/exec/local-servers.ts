// Sites the run serves itself stay reachable from its browsers whatever the egress policy: on the embedded
// service (this machine), the hosts of the suite's web server and of a scenario's `serve:` and `web_server:`
// are added to the network.private_hosts of the browser the scenario creates.
import type { RunState } from './run-context.js';

/** The create body with `hosts` (and the scenario's own servers' hosts) added to its network.private_hosts. */
export function withLocalServers(body: unknown, hosts: readonly string[], scope: RunState['scope']): unknown {
  const all = new Set<string>();
  for (const url of [...hosts, scope.serve?.url, scope.web_server?.url]) {
    const host = hostOf(url);
    if (host) all.add(host);
  }
  if (all.size === 0) return body;
  const create = (body && typeof body === 'object' ? body : {}) as { network?: { private_hosts?: string[] } };
  const listed = create.network?.private_hosts ?? [];
  return { ...create, network: { ...create.network, private_hosts: [...new Set([...listed, ...all])] } };
}

/** A URL's host as network.private_hosts takes it (an IPv6 address without its brackets). */
export function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1') || undefined;
  } catch {
    return undefined;
  }
}

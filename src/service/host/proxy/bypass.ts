// A proxy's `bypass_hosts`: destinations the forwarder connects to directly instead of through the proxy.
// Applied in the forwarder rather than as Chromium's --proxy-bypass-list, so they follow the proxy when a
// running session is switched to another one. Rules: `example.com` (that host), `*.example.com` or
// `.example.com` (its subdomains), an IP address, or a CIDR range; any of them may end in `:port`.
import net from 'node:net';

interface Rule {
  port?: number;
  matches(host: string): boolean;
}

export type BypassMatcher = (host: string, port: number) => boolean;

export function bypassMatcher(entries: readonly string[]): BypassMatcher {
  const rules = entries.map(parseRule).filter((r): r is Rule => r !== undefined);
  if (rules.length === 0) return () => false;
  return (host, port) => {
    const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.$/, '');
    return rules.some((r) => (r.port === undefined || r.port === port) && r.matches(h));
  };
}

function parseRule(entry: string): Rule | undefined {
  let text = entry.trim().toLowerCase();
  let port: number | undefined;
  // A port follows the last colon, except in a bare IPv6 address (which has several colons).
  const portMatch = /^(\[[^\]]+\](?:\/\d+)?|[^:]+):(\d{1,5})$/.exec(text);
  if (portMatch) {
    text = portMatch[1]!;
    port = Number(portMatch[2]);
  }
  text = text.replace(/^\[(.*)\](\/\d+)?$/, '$1$2');
  const cidr = /^([0-9a-f:.]+)\/(\d{1,3})$/.exec(text);
  if (cidr) {
    const family = net.isIP(cidr[1]!);
    if (!family) return undefined;
    const list = new net.BlockList();
    try {
      list.addSubnet(cidr[1]!, Number(cidr[2]), family === 6 ? 'ipv6' : 'ipv4');
    } catch {
      return undefined;
    }
    return { port, matches: (h) => net.isIP(h) !== 0 && list.check(h, net.isIP(h) === 6 ? 'ipv6' : 'ipv4') };
  }
  if (text.startsWith('*.') || text.startsWith('.')) {
    const suffix = text.slice(text.indexOf('.'));
    return { port, matches: (h) => h.endsWith(suffix) };
  }
  return { port, matches: (h) => h === text };
}

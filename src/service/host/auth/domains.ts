// Where a login flow may go: the connection's domain and its subdomains, the login page's host, the hosts a
// connection allows, and the identity providers sites commonly send people to (pre-allowed, as hosted).
const COMMON_IDPS = [
  'accounts.google.com',
  'login.microsoftonline.com',
  'login.live.com',
  'github.com',
  'appleid.apple.com',
  'okta.com',
  'auth0.com',
  'onelogin.com',
  'facebook.com',
  'login.salesforce.com',
];

/** Whether `host` is `domain` or under it; `*.domain` patterns match subdomains only. */
export function hostMatches(host: string, pattern: string): boolean {
  const h = host.toLowerCase();
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) return h.endsWith(p.slice(1));
  return h === p || h.endsWith(`.${p}`);
}

export function isAllowedHost(url: string, domain: string, allowed: string[], loginUrl: string): boolean {
  let host: string;
  try {
    const parsed = new URL(url);
    // Pages of the browser itself (about:blank while a navigation starts) belong to no site.
    if (!/^https?:$/.test(parsed.protocol)) return true;
    host = parsed.hostname;
  } catch {
    return false;
  }
  const loginHost = new URL(loginUrl).hostname;
  return [domain, loginHost, ...allowed, ...COMMON_IDPS].some((pattern) => hostMatches(host, pattern));
}

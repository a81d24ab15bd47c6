// URL building and query serialisation, matching what the hosted SDK puts on the wire
// (qs with `arrayFormat: 'comma'`), so servers see the same query from us and from it.

/** Normalises a base URL so joining never doubles or drops a slash; keeps any path prefix. */
export function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a valid URL: ${JSON.stringify(baseUrl)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be http(s), got ${url.protocol}`);
  }
  // Credentials in the URL would be sent nowhere useful (fetch refuses them) and would leak into errors.
  if (url.username || url.password) throw new TypeError('baseUrl must not contain credentials');
  if (url.search || url.hash) throw new TypeError('baseUrl must not contain a query or fragment');
  return url.href.replace(/\/+$/, '');
}

export function buildUrl(normalizedBase: string, path: string, query?: Record<string, unknown>): string {
  const rel = path.startsWith('/') ? path : `/${path}`;
  const qs = query ? stringifyQuery(query) : '';
  return `${normalizedBase}${rel}${qs ? `?${qs}` : ''}`;
}

/**
 * Scalars as usual, arrays comma-joined, objects as deepObject (`tags[team]=a`), undefined and
 * null skipped. Keys and values are percent-encoded (RFC 3986), brackets included, as qs does.
 */
export function stringifyQuery(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query)) appendPairs(pairs, key, value);
  return pairs.join('&');
}

function appendPairs(pairs: string[], key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    const items = value.filter((v) => v !== undefined && v !== null);
    // An empty array has no comma form; sending `key=` would mean "one empty item".
    if (items.length === 0) return;
    pairs.push(`${encode(key)}=${items.map((v) => encode(scalar(key, v))).join(',')}`);
    return;
  }
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) appendPairs(pairs, `${key}[${k}]`, v);
    return;
  }
  pairs.push(`${encode(key)}=${encode(scalar(key, value))}`);
}

function scalar(key: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  throw new TypeError(`query parameter ${key} has an unsupported value type (${typeof v})`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function encode(s: string): string {
  return encodeURIComponent(s);
}

/**
 * Encodes one path segment. `.` and `..` are refused because URL normalisation would resolve
 * them (even percent-encoded) and silently address a different route.
 */
export function pathSegment(value: string, what = 'path parameter'): string {
  if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
    throw new TypeError(`${what} must be a non-empty string other than "." or ".."`);
  }
  return encodeURIComponent(value);
}

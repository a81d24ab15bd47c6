// Hash routes (`#/sessions/abc`, `#/runs?suite=shop`): the server serves one shell for `/`, so the page part
// stays in the browser.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path's segments, decoded: `#/sessions/a%20b` is ['sessions', 'a b']. */
  parts: string[];
  /** What follows `?`: a page's filters, or the names of what it shows when they are not ids (a scenario's suite and name). */
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split(/\?(.*)/s);
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { parts, query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** The href of a console page: each segment encoded, so an id or a name cannot change the route. */
export const href = (...parts: string[]) => `#/${parts.map(encodeURIComponent).join('/')}`;

/** `href` with a query; empty and missing values are left out, so a link names only the filters that apply. */
export function hrefWith(parts: string[], query: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const search = params.toString();
  return search ? `${href(...parts)}?${search}` : href(...parts);
}

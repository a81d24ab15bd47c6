// Hash routes (`#/sessions/abc`): the server serves one shell for `/`, so the page part stays in the browser.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path's segments, decoded: `#/sessions/a%20b` is ['sessions', 'a b']. */
  parts: string[];
}

export function parseHash(hash: string): Route {
  const path = hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { parts };
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

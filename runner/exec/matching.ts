// How steps match strings and URLs at run time: a Match (equals, contains, matches) and Playwright's URL
// globs, shared by the page, dialog, response and download steps.
import type { Match, UrlPattern } from '../../src/scenario/plan.js';

/** Playwright's glob rules: `**` crosses path segments, `*` does not, `?` is one character, `{a,b}` either. */
export function matchesUrl(url: string, want: UrlPattern): boolean {
  if (typeof want !== 'string') return new RegExp(want.matches).test(url);
  return globToRegExp(want).test(url);
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '.';
    else if (c === '{') (re += '(?:'), (inBraces = true);
    else if (c === '}' && inBraces) (re += ')'), (inBraces = false);
    else if (c === ',' && inBraces) re += '|';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export function matches(value: string, m: Match): boolean {
  if ('equals' in m) return value === m.equals;
  if ('contains' in m) return value.includes(m.contains);
  return new RegExp(m.matches).test(value);
}

export function describeMatch(m: Match): string {
  if ('equals' in m) return JSON.stringify(m.equals);
  if ('contains' in m) return `something containing ${JSON.stringify(m.contains)}`;
  return `something matching /${m.matches}/`;
}

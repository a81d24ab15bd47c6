// How JSON request bodies are read, for every route that takes one.
import type { FastifyInstance } from 'fastify';
import { invalidField } from './errors.js';

/**
 * Deepest nesting a body may have. JSON.parse takes any depth, but the code after it does not: V8's
 * JSON.stringify (the policy size check, storage, the answer) and every recursive walk overflow the stack
 * somewhere past a few thousand levels, which came out as a 500. No request of the wire nests near this.
 */
export const MAX_JSON_DEPTH = 100;

export function installJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    // An empty body is "no body" whatever the content type says (clients often send the header on DELETE).
    if (body === '') return done(null, undefined);
    parseJson(req, body as string, (err, value) => {
      if (err) return done(err, undefined);
      const deep = tooDeep(value, MAX_JSON_DEPTH);
      if (deep) return done(invalidField(['body', ...deep].join('.'), `nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
      done(null, value);
    });
  });
}

/**
 * Where `value` first nests deeper than `max` levels: the path to its top-level field (the rest of the
 * path is as long as the nesting), or undefined when it does not. Walked with a stack of its own, so
 * that any depth can be measured.
 */
function tooDeep(value: unknown, max: number): string[] | undefined {
  const pending: { value: unknown; depth: number; top: string[] }[] = [{ value, depth: 0, top: [] }];
  while (pending.length) {
    const { value: at, depth, top } = pending.pop()!;
    if (at === null || typeof at !== 'object') continue;
    if (depth >= max) return top;
    for (const [key, child] of Object.entries(at)) pending.push({ value: child, depth: depth + 1, top: depth === 0 ? [key] : top });
  }
  return undefined;
}

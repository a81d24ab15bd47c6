// Compile-time template substitution: variables and `env.*` are replaced now; `serve.url`, `session.*` and
// the variables steps save are left for the runner. Problems are collected (not thrown) so one run reports all of them.

import { renderTemplate } from './template.js';
import type { DataPath } from './path.js';
import { isPlainObject } from './template.js';

export interface SubstitutionContext {
  /** Variables from the scenario file (`vars:`), as written. */
  fileVars: Record<string, unknown>;
  /** Variables from the command line: taken literally (the shell has already expanded them) and winning. */
  cliVars: Record<string, string>;
  env: Record<string, string | undefined>;
  hasServe: boolean;
  /** Whether `name` is a variable a step saves at run time (left for the runner) and whether this use is fine. */
  savedUse?(name: string, usedAt: DataPath): { error?: string } | undefined;
  report(path: DataPath, message: string): void;
}

export interface Substituter {
  /** Deep-copies `value`, substituting every string; `path` is where `value` sits, for error positions. */
  substitute<T>(value: T, path: DataPath): T;
}

export function createSubstituter(ctx: SubstitutionContext): Substituter {
  const resolved = new Map<string, string>();
  const resolving: string[] = [];

  function variable(name: string, usedAt: DataPath): string | undefined {
    if (Object.hasOwn(ctx.cliVars, name)) return ctx.cliVars[name];
    const cached = resolved.get(name);
    if (cached !== undefined) return cached;
    if (resolving.includes(name)) {
      const cycle = [...resolving.slice(resolving.indexOf(name)), name].join(' -> ');
      ctx.report(usedAt, `variable cycle: ${cycle}`);
      return undefined;
    }
    resolving.push(name);
    // A variable's own templates are resolved (and reported) where the variable is defined.
    const text = renderTemplate(String(ctx.fileVars[name]), (n) => resolveName(n, ['vars', name]));
    resolving.pop();
    resolved.set(name, text);
    return text;
  }

  function resolveName(name: string, usedAt: DataPath): string | undefined {
    if (name.startsWith('env.')) {
      const key = name.slice('env.'.length);
      const value = ctx.env[key];
      if (value === undefined) ctx.report(usedAt, `environment variable '${key}' is not set`);
      return value;
    }
    if (name === 'serve.url') {
      if (!ctx.hasServe) ctx.report(usedAt, "'serve.url' is only available when the scenario has 'serve' (a folder to serve)");
      return undefined;
    }
    if (name.startsWith('session.') && name.length > 'session.'.length) {
      // The browser block is the request that creates the session, so it cannot use it.
      if (usedAt[0] === 'browser') ctx.report(usedAt, `'${name}' is not available in 'browser': the session does not exist yet`);
      return undefined;
    }
    if (Object.hasOwn(ctx.cliVars, name) || Object.hasOwn(ctx.fileVars, name)) return variable(name, usedAt);
    const saved = ctx.savedUse?.(name, usedAt);
    if (saved) {
      if (saved.error) ctx.report(usedAt, saved.error);
      return undefined;
    }
    ctx.report(usedAt, name === '' ? 'empty template {{ }}' : `unknown variable '${name}'`);
    return undefined;
  }

  function substitute<T>(value: T, path: DataPath): T {
    if (typeof value === 'string') return renderTemplate(value, (n) => resolveName(n, path)) as T;
    if (Array.isArray(value)) return value.map((item, i) => substitute(item, [...path, i])) as T;
    if (isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, [...path, k])])) as T;
    }
    return value;
  }

  // Every file variable is resolved even if unused, so a broken one is reported where it is written.
  for (const name of Object.keys(ctx.fileVars)) {
    if (!Object.hasOwn(ctx.cliVars, name)) variable(name, ['vars', name]);
  }
  return { substitute };
}

// Compile-time template substitution: variables and `env.*` are replaced now; `serve.url`, `web_server.url`,
// `session.*`, `secrets.*`, loop variables and the values steps save are left for the runner. Problems are
// collected (not thrown) so one run reports all of them.

import type { DataPath } from './path.js';
import { isPlainObject, renderTemplate, templatePath } from './template.js';

/** Where a template is used: a step's place in execution order, and the loop variables around it. */
export interface UseSite {
  seq?: number;
  loopVars?: readonly string[];
}

export interface SubstitutionContext {
  /** Variables from the scenario file (`vars:`), as written; lists and mappings are allowed. */
  fileVars: Record<string, unknown>;
  /**
   * Values from outside the file, winning over its vars and taken literally: `--var`s (the shell has
   * already expanded them) and, for an included file, its `with` parameters (resolved where they are written).
   */
  givenVars: Record<string, unknown>;
  env: Record<string, string | undefined>;
  hasServe: boolean;
  hasWebServer: boolean;
  /** Declared secret names (`{{ secrets.NAME }}`). */
  secrets: ReadonlySet<string>;
  /** Whether `name` is a variable a step saves at run time (left for the runner) and whether this use is fine. */
  savedUse?(name: string, site: UseSite | undefined): { error?: string } | undefined;
  report(path: DataPath, message: string): void;
}

/** What a name stands for at compile time. */
export type Probe = { known: true; value: unknown } | { known: false; runtime: true } | { known: false; runtime: false; error: string };

export interface Substituter {
  /** Deep-copies `value`, substituting every string; `path` is where `value` sits, for error positions. */
  substitute<T>(value: T, path: DataPath, site?: UseSite): T;
  /** What a template name refers to, without reporting anything. */
  probe(name: string, path: DataPath, site?: UseSite): Probe;
}

const RUNTIME: Probe = { known: false, runtime: true };

export function createSubstituter(ctx: SubstitutionContext): Substituter {
  const resolved = new Map<string, unknown>();
  const resolving: string[] = [];

  function variable(name: string, usedAt: DataPath): unknown {
    if (Object.hasOwn(ctx.givenVars, name)) return ctx.givenVars[name];
    if (resolved.has(name)) return resolved.get(name);
    if (resolving.includes(name)) {
      const cycle = [...resolving.slice(resolving.indexOf(name)), name].join(' -> ');
      ctx.report(usedAt, `variable cycle: ${cycle}`);
      return undefined;
    }
    resolving.push(name);
    // A variable's own templates are resolved (and reported) where the variable is defined.
    const raw = ctx.fileVars[name];
    const value = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean'
      ? renderTemplate(String(raw), (n) => render(n, ['vars', name], undefined))
      : substitute(raw, ['vars', name]);
    resolving.pop();
    resolved.set(name, value);
    return value;
  }

  function isVar(name: string): boolean {
    return Object.hasOwn(ctx.givenVars, name) || Object.hasOwn(ctx.fileVars, name);
  }

  function probe(name: string, usedAt: DataPath, site?: UseSite): Probe {
    const fail = (error: string): Probe => ({ known: false, runtime: false, error });
    if (name === '') return fail('empty template {{ }}');
    if (name.startsWith('env.')) {
      const key = name.slice('env.'.length);
      const value = ctx.env[key];
      return value === undefined ? fail(`environment variable '${key}' is not set`) : { known: true, value };
    }
    if (name === 'serve.url') {
      return ctx.hasServe ? RUNTIME : fail("'serve.url' is only available when the scenario has 'serve' (a folder to serve)");
    }
    if (name === 'web_server.url') {
      if (!ctx.hasWebServer) return fail("'web_server.url' is only available when the scenario has 'web_server'");
      return usedAt[0] === 'web_server' ? fail("'web_server.url' is not available in 'web_server' itself") : RUNTIME;
    }
    if (name.startsWith('session.') && name.length > 'session.'.length) {
      // The browser block is the request that creates the session, so it cannot use it.
      if (usedAt[0] === 'browser') return fail(`'${name}' is not available in 'browser': the session does not exist yet`);
      if (usedAt[0] === 'web_server') return fail(`'${name}' is not available in 'web_server': it starts before the browser`);
      return RUNTIME;
    }
    if (name.startsWith('secrets.')) {
      const secret = name.slice('secrets.'.length);
      if (ctx.secrets.has(secret)) return RUNTIME;
      const declared = [...ctx.secrets];
      return fail(`unknown secret '${secret}'; ${declared.length ? `declared: ${declared.join(', ')}` : "declare it under 'secrets:'"}`);
    }
    const [head = '', ...fields] = templatePath(name);
    if (site?.loopVars?.includes(head)) return RUNTIME;
    if (isVar(name)) return { known: true, value: variable(name, usedAt) };
    if (fields.length > 0 && isVar(head)) return walk(head, variable(head, usedAt), fields);
    const saved = ctx.savedUse?.(name, site);
    if (saved) return saved.error ? fail(saved.error) : RUNTIME;
    return fail(`unknown variable '${name}'`);
  }

  /** `{{ users[0].name }}` inside a list or mapping variable. */
  function walk(head: string, value: unknown, fields: string[]): Probe {
    let current = value;
    let where = head;
    for (const field of fields) {
      const holder = current as Record<string, unknown> | null;
      const present = holder !== null && typeof holder === 'object' && Object.hasOwn(holder, field);
      if (!present) {
        return { known: false, runtime: false, error: `'${where}' has no field '${field}'` };
      }
      current = holder[field];
      where = /^\d+$/.test(field) ? `${where}[${field}]` : `${where}.${field}`;
    }
    return { known: true, value: current };
  }

  /** The text for `{{ name }}` in a string, or undefined to leave it for the runner (or after an error). */
  function render(name: string, usedAt: DataPath, site: UseSite | undefined): string | undefined {
    const found = probe(name, usedAt, site);
    if (found.known) return textOf(found.value);
    if (!found.runtime) ctx.report(usedAt, found.error);
    return undefined;
  }

  function substitute<T>(value: T, path: DataPath, site?: UseSite): T {
    if (typeof value === 'string') return renderTemplate(value, (n) => render(n, path, site)) as T;
    if (Array.isArray(value)) return value.map((item, i) => substitute(item, [...path, i], site)) as T;
    if (isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, [...path, k], site)])) as T;
    }
    return value;
  }

  // Every file variable is resolved even if unused, so a broken one is reported where it is written.
  for (const name of Object.keys(ctx.fileVars)) {
    if (!Object.hasOwn(ctx.givenVars, name)) variable(name, ['vars', name]);
  }
  return { substitute, probe };
}

/** How a value reads inside a string: text as is, lists and mappings as JSON. */
export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

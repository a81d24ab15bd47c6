// Steps about the browser's pages and traffic rather than one element: switching to a popup, answering
// dialogs, routing requests, HTTP requests through the context, and waiting for a response.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { toMatch } from './describe.js';
import { SESSION_PATH, fileAssertions, jsonAssertions, matchAssertion, type CompiledKind, type KindContext } from './host-steps.js';
import type { Assertion, HttpRequest, Match, PageAction, RouteFulfill, UrlPattern } from './plan.js';
import { hasTemplate } from './template.js';

type Obj = Record<string, unknown>;

/** Where the service (ours and the hosted one) puts what a session's pages download. */
const DOWNLOADS_FOLDER = '/home/kernel/Downloads';

/** A URL with a scheme (or made whole at run time by a template) stands alone; any other needs the base. */
const STANDS_ALONE = /^([a-z][a-z0-9+.-]*:|\{\{)/i;

/**
 * The base a URL resolves against when the step runs: none for a whole URL; the scenario's base for a
 * relative one, which without a base is reported at `at`.
 */
export function baseFor(url: string, at: (string | number)[], ctx: KindContext): { base_url?: string } {
  if (STANDS_ALONE.test(url)) return {};
  if (ctx.baseUrl === undefined) {
    ctx.report(at, `'${url}' is a relative URL and the scenario has no base: set base_url (or serve a folder with serve), or write the whole URL`);
    return {};
  }
  return { base_url: ctx.baseUrl };
}

export function compileWebStep(kind: string, v: unknown, ctx: KindContext): CompiledKind {
  const { action, name } = toWebAction(kind, v, ctx);
  return { name, operations: [{ op: 'page', ...action }] };
}

function toWebAction(kind: string, v: unknown, ctx: KindContext): { action: PageAction; name: string } {
  const o = (isObj(v) ? v : {}) as Obj;
  switch (kind) {
    case 'switch_page': {
      const action: Extract<PageAction, { action: 'switch_page' }> = { action: 'switch_page' };
      if (o.url !== undefined) action.url = toMatch(o.url as string | Obj);
      if (o.title !== undefined) action.title = toMatch(o.title as string | Obj);
      if (typeof o.index === 'number') action.index = o.index;
      const parts = [action.url && `url ${show(action.url)}`, action.title && `title ${show(action.title)}`, action.index !== undefined && `index ${action.index}`];
      return { action, name: `switch to the page with ${parts.filter(Boolean).join(', ')}` };
    }
    case 'close_page':
      return { action: { action: 'close_page' }, name: 'close the page' };
    case 'dialog': {
      const accept = v === 'accept' || o.accept === true;
      const action: Extract<PageAction, { action: 'dialog' }> = { action: 'dialog', accept };
      if (typeof o.prompt_text === 'string') action.prompt_text = o.prompt_text;
      if (o.message !== undefined) action.message = toMatch(o.message as string | Obj);
      return { action, name: `${accept ? 'accept' : 'dismiss'} the next dialog${action.message ? ` saying ${show(action.message)}` : ''}` };
    }
    case 'route': {
      const url = urlPattern(o.url, [...ctx.at, 'url'], ctx);
      const action: Extract<PageAction, { action: 'route' }> = { action: 'route', url };
      let what: string;
      if (isObj(o.fulfill)) {
        action.fulfill = fulfillOf(o.fulfill, ctx);
        what = `fulfill with ${action.fulfill.status ?? 200}`;
      } else if (o.abort !== undefined) {
        action.abort = o.abort === true ? 'failed' : String(o.abort);
        what = `abort (${action.abort})`;
      } else {
        action.headers = o.headers as Record<string, string>;
        what = `continue with headers ${Object.keys(action.headers).join(', ')}`;
      }
      if (typeof o.times === 'number') action.times = o.times;
      return { action, name: `route ${showUrl(url)}: ${what}` };
    }
    case 'unroute':
      if (v === 'all') return { action: { action: 'unroute' }, name: 'remove every route' };
      return { action: { action: 'unroute', url: urlPattern(v, ctx.at, ctx) }, name: `remove the routes for ${showUrl(urlPattern(v, ctx.at, ctx))}` };
    case 'request': {
      const url = String(o.url);
      const request: HttpRequest = { method: typeof o.method === 'string' ? o.method : 'GET', url, ...baseFor(url, [...ctx.at, 'url'], ctx) };
      for (const key of ['headers', 'json', 'form', 'data', 'save'] as const) if (o[key] !== undefined) (request as unknown as Obj)[key] = o[key];
      Object.assign(request, checksOf(o, ctx));
      return { action: { action: 'request', ...request }, name: `${request.method} ${request.url}` };
    }
    case 'wait_for_response': {
      const url = urlPattern(isObj(v) ? o.url : v, isObj(v) ? [...ctx.at, 'url'] : ctx.at, ctx);
      const action: Extract<PageAction, { action: 'wait_for_response' }> = { action: 'wait_for_response', url };
      if (typeof o.method === 'string') action.method = o.method.toUpperCase();
      if (typeof o.status === 'number') action.status = o.status;
      if (typeof o.save === 'string') action.save = o.save;
      Object.assign(action, checksOf(o, ctx));
      return { action, name: `wait for the response from ${showUrl(url)}${action.status ? ` (${action.status})` : ''}` };
    }
    case 'wait_for_download': {
      const d: Obj = isObj(v) ? o : typeof v === 'string' ? { name: v } : {};
      const action: Extract<PageAction, { action: 'wait_for_download' }> = { action: 'wait_for_download', session_path: SESSION_PATH, folder: DOWNLOADS_FOLDER };
      if (d.name !== undefined) action.name = toMatch(d.name as string | Obj);
      if (d.url !== undefined) action.url = urlPattern(d.url, [...ctx.at, 'url'], ctx);
      if (typeof d.save === 'string') action.save = d.save;
      for (const key of ['expect', 'expect_soft'] as const) {
        const list = isObj(d[key]) ? fileAssertions(d[key] as Obj, [...ctx.at, key], ctx) : [];
        if (list.length) action[key] = list;
      }
      return { action, name: `wait for the download${action.name ? ` of ${show(action.name)}` : ''}` };
    }
    case 'save_storage_state': {
      const file = path.resolve(ctx.scenarioDir, String(v));
      return { action: { action: 'save_storage_state', file }, name: `save the storage state to ${String(v)}` };
    }
    default:
      throw new Error(`unknown web step kind '${kind}'`); // unreachable after validation
  }
}

function fulfillOf(f: Obj, ctx: KindContext): RouteFulfill {
  const out: RouteFulfill = {};
  for (const key of ['status', 'headers', 'content_type', 'json', 'body'] as const) if (f[key] !== undefined) (out as Obj)[key] = f[key];
  if (typeof f.file === 'string') {
    out.file = path.resolve(ctx.scenarioDir, f.file);
    if (!hasTemplate(f.file) && !existsSync(out.file)) ctx.report([...ctx.at, 'fulfill', 'file'], `no such file: ${out.file}`);
  }
  const bodies = ['json', 'body', 'file'].filter((k) => f[k] !== undefined);
  if (bodies.length > 1) ctx.report([...ctx.at, 'fulfill', bodies[1]!], `a route's answer has one body: use one of json, body and file, not ${bodies.join(' and ')}`);
  return out;
}

/** A response step's `expect` and `expect_soft`, each left out when empty. */
function checksOf(o: Obj, ctx: KindContext): { expect?: Assertion[]; expect_soft?: Assertion[] } {
  const out: { expect?: Assertion[]; expect_soft?: Assertion[] } = {};
  for (const key of ['expect', 'expect_soft'] as const) {
    const list = isObj(o[key]) ? responseAssertions(o[key] as Obj, [...ctx.at, key], ctx) : [];
    if (list.length) out[key] = list;
  }
  return out;
}

/** `expect: { status, headers, json, text }` → checks on the decoded response. */
function responseAssertions(e: Obj, at: (string | number)[], ctx: KindContext): Assertion[] {
  const list: Assertion[] = [];
  if (typeof e.status === 'number') list.push({ subject: 'status', equals: e.status });
  if (Array.isArray(e.status)) list.push({ subject: 'status', one_of: e.status });
  if (isObj(e.headers)) {
    for (const [name, match] of Object.entries(e.headers)) {
      list.push(matchAssertion(`headers.${name.toLowerCase()}`, match as string | Obj, [...at, 'headers', name], ctx));
    }
  }
  if (e.text !== undefined) list.push(matchAssertion('text', e.text as string | Obj, [...at, 'text'], ctx));
  if (e.json !== undefined) list.push(...jsonAssertions('json', e.json, [...at, 'json'], ctx));
  return list;
}

function urlPattern(v: unknown, at: (string | number)[], ctx: KindContext): UrlPattern {
  if (isObj(v) && typeof v.matches === 'string') {
    if (!hasTemplate(v.matches)) {
      try {
        new RegExp(v.matches);
      } catch (err) {
        ctx.report([...at, 'matches'], `invalid regular expression: ${(err as Error).message}`);
      }
    }
    return { matches: v.matches };
  }
  return String(v);
}

function show(m: Match): string {
  if ('equals' in m) return JSON.stringify(m.equals);
  if ('contains' in m) return `containing ${JSON.stringify(m.contains)}`;
  return `matching /${m.matches}/`;
}

function showUrl(u: UrlPattern): string {
  return typeof u === 'string' ? u : `/${u.matches}/`;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

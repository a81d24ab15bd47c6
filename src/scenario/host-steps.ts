// Host steps — exec, spawn, wait_process, read_file, write_file, upload, wait_file, execute, clipboard and
// screen screenshots — compiled to calls of the browser's host APIs. Each is one API call (or one poll)
// whose expectations are plain data evaluated by the runner, so `bcs plan` shows exactly what will be sent.

import { statSync } from 'node:fs';
import path from 'node:path';
import { screenshotFile, screenshotName, toMatch } from './describe.js';
import { durationAt } from './duration.js';
import { parseJsonPath } from './json-path.js';
import type { DataPath } from './path.js';
import type { ApiCall, Assertion, Operation } from './plan.js';
import { findProcess, type SavedVariable } from './saves.js';
import { hasTemplate } from './template.js';

type Obj = Record<string, unknown>;

/** Every host API lives under the session; the runner fills in the id. */
export const SESSION_PATH = '/browsers/{{ session.session_id }}';

/** Room for the request itself around a command's or a wait's own timeout. */
const HEADROOM_MS = 2_000;
const POLL_INTERVAL_MS = 200;
const MAX_EXEC_TIMEOUT_S = 86_400;
const MAX_EXECUTE_TIMEOUT_S = 300;

export interface KindContext {
  /** Where the kind's value is written: `['steps', i, kind]`. */
  at: DataPath;
  /** The step's place in execution order, for checking saved values (src/scenario/saves.ts). */
  seq: number;
  /** 1-based among main steps, for artifact file names. */
  mainIndex: number;
  /** Local files (`from`) are relative to this folder. */
  scenarioDir: string;
  /** The file the step is written in (absolute): screenshot baselines live beside it. */
  scenarioFile: string;
  saves: SavedVariable[];
  /** What relative gotos resolve against; undefined when the scenario has none. */
  baseUrl?: string;
  report(at: DataPath, message: string): void;
}

export interface CompiledKind {
  name: string;
  operations: Operation[];
  /** How long the step waits (its own `timeout`); replaces the step timeout, as `expect`'s does. */
  waitMs?: number;
  /** A command's own timeout plus headroom: the least the step gets when it sets no timeout. */
  minTimeoutMs?: number;
}

export function compileHostStep(kind: string, v: unknown, ctx: KindContext): CompiledKind {
  switch (kind) {
    case 'exec': return compileExec(v as string | Obj, ctx);
    case 'spawn': return compileSpawn(v as string | Obj, ctx);
    case 'wait_process': return compileWaitProcess(v as string | Obj, ctx);
    case 'read_file': return compileReadFile(v as string | Obj, ctx);
    case 'write_file': return compileWriteFile(v as Obj, ctx);
    case 'upload': return compileUpload(v as Obj, ctx);
    case 'wait_file': return compileWaitFile(v as string | Obj, ctx);
    case 'execute': return compileExecute(v as string | Obj, ctx);
    case 'clipboard': return compileClipboard(v as Obj, ctx);
    default: throw new Error(`unknown host step kind '${kind}'`); // unreachable after validation
  }
}

function compileExec(v: string | Obj, ctx: KindContext): CompiledKind {
  const body = processBody(v);
  let minTimeoutMs: number | undefined;
  if (typeof v !== 'string' && v.timeout !== undefined) {
    const seconds = Math.max(1, Math.ceil(durationAt(v.timeout, [...ctx.at, 'timeout'], ctx.report) / 1000));
    if (seconds > MAX_EXEC_TIMEOUT_S) ctx.report([...ctx.at, 'timeout'], 'a command timeout is at most 24h');
    body.timeout_sec = seconds;
    minTimeoutMs = seconds * 1000 + HEADROOM_MS;
  }
  const expect = typeof v !== 'string' && isObj(v.expect) ? v.expect : {};
  const soft = typeof v !== 'string' && isObj(v.expect_soft) ? v.expect_soft : {};
  const checks = (e: Obj, key: string, defaultExit: boolean): Assertion[] => [
    ...exitCode(e.exit_code, defaultExit),
    ...(['stdout', 'stderr'] as const).filter((k) => e[k] !== undefined)
      .map((k) => matchAssertion(k, e[k] as string | Obj, [...ctx.at, key, k], ctx)),
  ];
  return {
    name: `exec ${commandLine(v)}`,
    operations: [api({
      method: 'POST', path: `${SESSION_PATH}/process/exec`, body, decode: 'exec',
      // Exit 0 is required unless either list says which exit code to expect.
      expect: checks(expect, 'expect', soft.exit_code === undefined), expect_soft: checks(soft, 'expect_soft', false), save: saveOf(v),
    })],
    minTimeoutMs,
  };
}

function compileSpawn(v: string | Obj, _ctx: KindContext): CompiledKind {
  return {
    name: `spawn ${commandLine(v)}`,
    operations: [api({ method: 'POST', path: `${SESSION_PATH}/process/spawn`, body: processBody(v), decode: 'spawn', save: saveOf(v) })],
  };
}

function compileWaitProcess(v: string | Obj, ctx: KindContext): CompiledKind {
  const o = typeof v === 'string' ? { process: v } : v;
  const name = String(o.process);
  const found = findProcess(ctx.saves, name, ctx.seq);
  if (found.error) ctx.report(typeof v === 'string' ? ctx.at : [...ctx.at, 'process'], found.error);
  const expect = isObj(o.expect) ? o.expect : {};
  const soft = isObj(o.expect_soft) ? o.expect_soft : {};
  const poll: Operation = {
    op: 'poll',
    method: 'GET',
    path: `${SESSION_PATH}/process/{{ ${name}.process_id }}/status`,
    decode: 'process_status',
    until: [{ subject: 'state', equals: 'exited' }],
    interval_ms: POLL_INTERVAL_MS,
    waiting_for: `process ${name} to exit`,
    ...nonEmpty('expect', exitCode(expect.exit_code, soft.exit_code === undefined)),
    ...nonEmpty('expect_soft', exitCode(soft.exit_code, false)),
  };
  return { name: `wait_process ${name}`, operations: [poll], waitMs: durationOf(o.timeout, ctx) };
}

function compileReadFile(v: string | Obj, ctx: KindContext): CompiledKind {
  const o = typeof v === 'string' ? { path: v } : v;
  const checks = (key: string): Assertion[] => (isObj(o[key]) ? fileAssertions(o[key] as Obj, [...ctx.at, key], ctx) : []);
  const call: ApiCall = {
    method: 'GET',
    path: `${SESSION_PATH}/fs/read_file`,
    query: { path: String(o.path) },
    response: 'bytes',
    decode: 'file',
    expect: checks('expect'),
    expect_soft: checks('expect_soft'),
    save: saveOf(o),
  };
  if (typeof o.save_to === 'string') call.artifact = { type: 'file', file: o.save_to };
  return { name: `read_file ${String(o.path)}`, operations: [api(call)] };
}

/** A file's `expect` (read_file, wait_for_download): its text, size, digest and JSON, in the order written. */
export function fileAssertions(expect: Obj, at: DataPath, ctx: KindContext): Assertion[] {
  const assertions: Assertion[] = [];
  for (const [k, value] of Object.entries(expect)) {
    if (k === 'equals' || k === 'contains' || k === 'matches') {
      assertions.push(matchAssertion('text', { [k]: value }, [...at, k], ctx, [...at, k]));
    } else if (k === 'bytes_at_least') assertions.push({ subject: 'size_bytes', at_least: value as number });
    else if (k === 'sha256') assertions.push({ subject: 'sha256', equals: hasTemplate(String(value)) ? String(value) : String(value).toLowerCase() });
    else if (k === 'json') assertions.push(...jsonAssertions('json', value, [...at, 'json'], ctx));
  }
  return assertions;
}

function compileWriteFile(o: Obj, ctx: KindContext): CompiledKind {
  const query: Record<string, string> = { path: String(o.path) };
  if (o.mode !== undefined) query.mode = fileMode(o.mode as string | number, [...ctx.at, 'mode'], ctx);
  const raw_body = typeof o.content === 'string'
    ? { text: o.content }
    : { file: localFile(String(o.from), [...ctx.at, 'from'], ctx) };
  return {
    name: `write_file ${String(o.path)}`,
    operations: [api({ method: 'PUT', path: `${SESSION_PATH}/fs/write_file`, query, raw_body })],
  };
}

function compileUpload(o: Obj, ctx: KindContext): CompiledKind {
  const files = o.files as { from: string; to: string }[];
  // dest_path first: a server that already knows where a file goes can stream it there.
  const form = files.flatMap((f, i) => [
    { name: `files[${i}][dest_path]`, value: f.to },
    { name: `files[${i}][file]`, file: localFile(f.from, [...ctx.at, 'files', i, 'from'], ctx) },
  ]);
  const first = files[0]!;
  return {
    name: files.length === 1 ? `upload ${first.from} -> ${first.to}` : `upload ${files.length} files`,
    operations: [api({ method: 'POST', path: `${SESSION_PATH}/fs/upload`, form })],
  };
}

function compileWaitFile(v: string | Obj, ctx: KindContext): CompiledKind {
  const o = typeof v === 'string' ? { path: v } : v;
  const file = String(o.path);
  const min = typeof o.min_bytes === 'number' ? o.min_bytes : undefined;
  const poll: Operation = {
    op: 'poll',
    method: 'GET',
    path: `${SESSION_PATH}/fs/file_info`,
    query: { path: file },
    decode: 'file_info',
    // Not there yet is what we are waiting out; any other error is a real failure.
    pending_status: [404],
    until: min === undefined ? [] : [{ subject: 'size_bytes', at_least: min }],
    interval_ms: POLL_INTERVAL_MS,
    waiting_for: min === undefined ? `${file} to exist` : `${file} to have at least ${min} bytes`,
  };
  return { name: `wait_file ${file}`, operations: [poll], waitMs: durationOf(o.timeout, ctx) };
}

function compileExecute(v: string | Obj, ctx: KindContext): CompiledKind {
  const o = typeof v === 'string' ? { code: v } : v;
  const body: Obj = { code: String(o.code) };
  let minTimeoutMs: number | undefined;
  if (o.timeout !== undefined) {
    const seconds = Math.max(1, Math.ceil(durationAt(o.timeout, [...ctx.at, 'timeout'], ctx.report) / 1000));
    if (seconds > MAX_EXECUTE_TIMEOUT_S) ctx.report([...ctx.at, 'timeout'], 'playwright code may run at most 300s');
    body.timeout_sec = seconds;
    minTimeoutMs = seconds * 1000 + HEADROOM_MS;
  }
  const checks = (key: string): Assertion[] => {
    const expect = isObj(o[key]) ? (o[key] as Obj) : {};
    const assertions: Assertion[] = [];
    for (const k of Object.keys(expect)) {
      if (k === 'result') assertions.push({ subject: 'result', equals: expect.result });
      if (k === 'json') assertions.push(...jsonAssertions('result', expect.json, [...ctx.at, key, 'json'], ctx));
    }
    return assertions;
  };
  const firstLine = String(o.code).trim().split('\n')[0] ?? '';
  return {
    name: `execute ${short(firstLine, 60)}`,
    operations: [api({
      method: 'POST', path: `${SESSION_PATH}/playwright/execute`, body, decode: 'execute',
      expect: checks('expect'), expect_soft: checks('expect_soft'), save: saveOf(o),
    })],
    minTimeoutMs,
  };
}

function compileClipboard(o: Obj, ctx: KindContext): CompiledKind {
  if (typeof o.write === 'string') {
    return {
      name: `clipboard write ${JSON.stringify(short(o.write, 40))}`,
      operations: [api({ method: 'POST', path: `${SESSION_PATH}/computer/clipboard/write`, body: { text: o.write } })],
    };
  }
  const checks = (key: string): Assertion[] =>
    o[key] === undefined ? [] : [matchAssertion('text', o[key] as string | Obj, [...ctx.at, key], ctx)];
  return {
    name: 'clipboard read',
    operations: [api({
      method: 'POST', path: `${SESSION_PATH}/computer/clipboard/read`, decode: 'clipboard',
      expect: checks('expect'), expect_soft: checks('expect_soft'), save: saveOf(o),
    })],
  };
}

/** `screenshot: { screen: true }`: the whole screen through the computer API, saved as an artifact. */
export function compileScreenScreenshot(o: Obj, ctx: KindContext): CompiledKind {
  if (o.full_page !== undefined) {
    ctx.report([...ctx.at, 'full_page'], "'full_page' applies to page screenshots; a screen screenshot captures what the screen shows");
  }
  const name = screenshotName(o);
  const call: ApiCall = {
    method: 'POST',
    path: `${SESSION_PATH}/computer/screenshot`,
    response: 'bytes',
    artifact: { type: 'screenshot', file: screenshotFile(ctx.mainIndex, name) },
  };
  if (isObj(o.region)) call.body = { region: o.region };
  return { name: name === undefined ? 'screenshot (screen)' : `screenshot ${name} (screen)`, operations: [api(call)] };
}

/** The body of exec and spawn. A string is a shell command line. */
function processBody(v: string | Obj): Obj {
  if (typeof v === 'string') return { command: 'sh', args: ['-c', v] };
  const body: Obj = { command: v.command };
  if (Array.isArray(v.args)) body.args = v.args.map(String);
  for (const key of ['cwd', 'as_user', 'as_root'] as const) if (v[key] !== undefined) body[key] = v[key];
  if (isObj(v.env)) body.env = Object.fromEntries(Object.entries(v.env).map(([k, value]) => [k, String(value)]));
  return body;
}

function commandLine(v: string | Obj): string {
  if (typeof v === 'string') return short(v, 80);
  const words = [String(v.command), ...(Array.isArray(v.args) ? v.args.map(String) : [])];
  // Quoted as a shell would need it, so the name can be pasted into a terminal.
  return short(words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' '), 80);
}

/** The exit code to require: as written, else 0 when `defaultZero`; `any` requires nothing. */
function exitCode(v: unknown, defaultZero: boolean): Assertion[] {
  if (v === 'any') return [];
  if (Array.isArray(v)) return v.length === 1 ? [{ subject: 'exit_code', equals: v[0] }] : [{ subject: 'exit_code', one_of: v }];
  if (typeof v === 'number') return [{ subject: 'exit_code', equals: v }];
  return defaultZero ? [{ subject: 'exit_code', equals: 0 }] : [];
}

export function matchAssertion(subject: string, v: string | Obj, at: DataPath, ctx: KindContext, regexAt?: DataPath): Assertion {
  const match = toMatch(v);
  // A pattern made at run time (`{{ item }}`) is checked when it is used.
  if ('matches' in match && !hasTemplate(match.matches)) {
    try {
      new RegExp(match.matches);
    } catch (err) {
      ctx.report(regexAt ?? [...at, 'matches'], `invalid regular expression: ${(err as Error).message}`);
    }
  }
  return { subject, ...match };
}

/** `json: { path, equals | contains | matches }` (or a list of them): checks on values inside `subject`. */
export function jsonAssertions(subject: string, v: unknown, at: DataPath, ctx: KindContext): Assertion[] {
  const list = Array.isArray(v) ? (v as Obj[]) : [v as Obj];
  return list.map((check, i) => {
    const where = [...at, ...(Array.isArray(v) ? [i] : [])];
    const jsonPath = typeof check.path === 'string' ? check.path : '$';
    try {
      if (!hasTemplate(jsonPath)) parseJsonPath(jsonPath);
    } catch (err) {
      ctx.report([...where, 'path'], `invalid JSON path: ${(err as Error).message}`);
    }
    const text = (['contains', 'matches'] as const).find((k) => typeof check[k] === 'string');
    if (text) {
      const { subject: _, ...match } = matchAssertion(subject, { [text]: check[text] }, where, ctx);
      return { subject, json_path: jsonPath, ...match } as Assertion;
    }
    return { subject, json_path: jsonPath, equals: check.equals };
  });
}

/** An absolute path to a local file, checked now so a missing fixture is reported where it is named. */
function localFile(file: string, at: DataPath, ctx: KindContext): string {
  const abs = path.resolve(ctx.scenarioDir, file);
  if (hasTemplate(file)) return abs;
  try {
    if (!statSync(abs).isFile()) ctx.report(at, `not a file: ${abs}`);
  } catch {
    ctx.report(at, `local file not found: ${abs}`);
  }
  return abs;
}

function fileMode(v: string | number, at: DataPath, ctx: KindContext): string {
  const text = String(v);
  if (!/^[0-7]{3,4}$/.test(text)) ctx.report(at, `mode ${text} is not octal; write it quoted, such as "0644"`);
  return text;
}

export function api(call: ApiCall): Operation {
  // Empty lists and absent options are left out, so plans stay short to read and compare.
  const out: Obj = { op: 'api' };
  for (const [key, value] of Object.entries(call)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0 && (key === 'expect' || key === 'expect_soft'))) continue;
    out[key] = value;
  }
  return out as Operation;
}

function nonEmpty<K extends string>(key: K, list: Assertion[]): Partial<Record<K, Assertion[]>> {
  return list.length ? ({ [key]: list } as Record<K, Assertion[]>) : {};
}

export function saveOf(v: unknown): string | undefined {
  return isObj(v) && typeof v.save === 'string' ? v.save : undefined;
}

function durationOf(v: unknown, ctx: KindContext): number | undefined {
  return v === undefined ? undefined : durationAt(v, [...ctx.at, 'timeout'], ctx.report);
}

function short(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// What every administration command (`bcs keys|projects|profiles|extensions|proxies|pools`, `deploy`,
// `invoke`, `apps|deployments|invocations`) shares: the target flags, the client, `--json` or a readable
// table, and one mapping of failures to messages and exit codes:
//   the API refused (4xx/5xx): `bcs: <message> (<code>)`, exit 1
//   the service could not be reached or did not answer in time: exit 3
//   bad flags or arguments: exit 2
import { addApiKeyOptions, resolveApiKey } from '../api-key.js';
import { Option, type Command } from 'commander';
import { ApiConnectionError, ApiError, ApiTimeoutError, CloudClient, type HttpMethod, type RequestOptions } from '../../../src/api/index.js';
import { EXIT } from '../../suite/exit-codes.js';
import { UsageError } from '../usage-error.js';

export type Finish = (code: number) => void;

export interface AdminFlagSet {
  /** `--project ID|NAME`, sent as `X-Kernel-Project-Id` (not on organisation commands, which ignore it). */
  project: boolean;
}

/** A failure on our side of the wire that is not a usage mistake (a file that cannot be written): exit 1. */
export class AdminError extends Error {}

/** The target and output flags, added to each leaf command so they can go anywhere after it. */
export function adminFlags(cmd: Command, set: AdminFlagSet = { project: true }): Command {
  cmd.addOption(new Option('--base-url <url>', 'the running service to act on (what `bcs serve` printed)').env('BCS_BASE_URL'));
  addApiKeyOptions(cmd, 'an API key of that service').option('--json', 'print the API response as JSON');
  if (set.project) cmd.option('--project <id|name>', 'act in this project (sent as X-Kernel-Project-Id)');
  return cmd;
}

export interface Admin {
  json: boolean;
  /** Prints `value` as JSON with --json, else the human lines `human` makes of it. */
  print<T>(value: T, human: (value: T) => string | string[]): void;
  /** One API call; writes are never repeated after a lost answer (creating twice is worse than failing). */
  call<T>(method: HttpMethod, path: string, opts?: RequestOptions): Promise<T>;
  /** Every item of an offset-paginated list. */
  list<T>(path: string, query?: Record<string, unknown>): Promise<T[]>;
  /** The frames of a server-sent event stream (`…/events`) until the service ends it; not retried. */
  events<T>(path: string, query?: Record<string, unknown>): AsyncIterableIterator<T>;
  /** Strings that must not appear in any message this command prints (a proxy password). */
  secrets: string[];
}

/**
 * Wraps a command's action: builds the client from the flags, runs `fn`, and turns whatever it throws into
 * a message and an exit code. `fn` returns its exit code (default 0).
 */
export function adminAction<A extends unknown[]>(
  finish: Finish,
  fn: (admin: Admin, ...args: A) => Promise<number | void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    // commander passes the positional arguments, then the options, then the command.
    const o = args[args.length - 2] as Record<string, unknown>;
    const secrets: string[] = [];
    try {
      const admin = connect(o, secrets);
      const code = await fn(admin, ...args);
      finish(code ?? EXIT.passed);
    } catch (err) {
      const { message, code } = describeFailure(err, String(o.baseUrl ?? ''));
      process.stderr.write(`bcs: ${redact(message, secrets)}\n`);
      finish(code);
    }
  };
}

function connect(o: Record<string, unknown>, secrets: string[]): Admin {
  // An empty environment variable means "not set".
  const baseUrl = typeof o.baseUrl === 'string' && o.baseUrl ? o.baseUrl : undefined;
  const apiKey = resolveApiKey(o);
  if (!baseUrl) throw new UsageError('this command acts on a running service: pass --base-url or set BCS_BASE_URL (`bcs serve` prints it)');
  if (!apiKey) throw new UsageError('set BCS_API_KEY or pass --api-key-file');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url must be an http:// or https:// URL, got '${baseUrl}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be an http:// or https:// URL, got '${baseUrl}'`);
  const project = typeof o.project === 'string' && o.project ? o.project : undefined;
  const client = new CloudClient({ baseUrl, apiKey, projectId: project, userAgent: 'bcs-admin' });
  const json = Boolean(o.json);
  return {
    json,
    secrets,
    print(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else {
        const lines = human(value);
        const text = Array.isArray(lines) ? lines.join('\n') : lines;
        if (text) process.stdout.write(`${text}\n`);
      }
    },
    async call<T>(method: HttpMethod, path: string, opts: RequestOptions = {}) {
      const res = await client.request<T>(method, path, { ...(method === 'GET' ? {} : { maxRetries: 0 }), ...opts });
      return res.data;
    },
    async list<T>(path: string, query?: Record<string, unknown>) {
      const items: T[] = [];
      for await (const item of client.paginate<T>(path, query, 100)) items.push(item);
      return items;
    },
    events: (path, query) => client.events(path, { query }),
  };
}

function describeFailure(err: unknown, baseUrl: string): { message: string; code: number } {
  if (err instanceof UsageError) return { message: err.message, code: EXIT.invalid };
  if (err instanceof ApiConnectionError || err instanceof ApiTimeoutError) {
    return { message: `cannot reach the service at ${baseUrl}: ${err.serverMessage}`, code: EXIT.infrastructure };
  }
  if (err instanceof ApiError) return { message: `${err.serverMessage} (${err.code})`, code: EXIT.failed };
  if (err instanceof AdminError) return { message: err.message, code: EXIT.failed };
  return { message: (err as Error).message ?? String(err), code: EXIT.failed };
}

function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s) out = out.split(s).join('[REDACTED]');
  return out;
}

/** Left-aligned columns, two spaces apart; `-` for an empty cell. */
export function table(header: string[], rows: (string | number | null | undefined)[][]): string[] {
  const cells = [header, ...rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** A record as `  field  value` lines, values aligned; `-` for an empty value. */
export function fields(rows: [string, string | number | null | undefined][]): string[] {
  return table(['', ''], rows).slice(1).map((line) => `  ${line}`);
}

/** `2026-05-01T10:20:30.123Z` as `2026-05-01 10:20:30Z`; absent as `-`. */
export function when(iso: string | null | undefined): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}

export function segment(idOrName: string): string {
  return encodeURIComponent(idOrName);
}

/** A whole number flag within bounds, or a usage error naming it. */
export function wholeNumber(value: unknown, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim()) || n < min || n > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got '${String(value)}'`);
  }
  return n;
}

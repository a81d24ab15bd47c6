// A WebDriver BiDi server for one client: chromium-bidi's mapper, run in the service process over its own
// CDP connection to the session's browser (bidi-cdp.ts) instead of inside a browser tab as ChromeDriver
// runs it. The mapper validates parameters and answers unknown commands itself; what it cannot see, a
// frame that is not a command at all, is answered here as the protocol says: `invalid argument`.
import type { BidiMapper } from 'chromium-bidi';
import type { BidiParser } from 'chromium-bidi/out/Default/gen/src/bidiTab/BidiParser.js';
import { DomainError, unavailable } from '../errors.js';
import { MapperCdpLink } from './bidi-cdp.js';

interface MapperModule {
  BidiServer: typeof BidiMapper.BidiServer;
  EventEmitter: typeof BidiMapper.EventEmitter;
  BidiParser: typeof BidiParser;
}

type Command = Parameters<Parameters<BidiMapper.BidiTransport['setOnMessage']>[0]>[0];

let loading: Promise<MapperModule> | undefined;

/**
 * chromium-bidi with its zod schemas takes a few hundred ms to import on a busy machine; the service starts
 * often (tests, `bcs run`) and most runs never open a BiDi connection, so it loads on the first one.
 */
function loadMapper(): Promise<MapperModule> {
  loading ??= Promise.all([import('chromium-bidi'), import('chromium-bidi/out/Default/gen/src/bidiTab/BidiParser.js')]).then(
    ([bidi, parser]) => ({ BidiServer: bidi.BidiMapper.BidiServer, EventEmitter: bidi.BidiMapper.EventEmitter, BidiParser: parser.BidiParser }),
    (err: Error) => {
      loading = undefined;
      throw unavailable('bidi_unavailable', `the WebDriver BiDi mapper cannot be loaded: ${err.message}`);
    },
  );
  return loading;
}

export interface BidiMapperOptions {
  /** The session's browser (treated as opaque: any CDP browser endpoint). */
  wsEndpoint: string;
  browserPath: (viewPath: string) => string;
  /** Each outgoing BiDi message (answers and events), as the text of one WebSocket message. */
  send(text: string): void;
  /** The browser connection ended without close() (Chromium exited or closed it). */
  onBrowserGone(): void;
}

export interface BidiMapperSession {
  /** One text message from the client. */
  receive(text: string): void;
  /** One binary message from the client, which BiDi has no use for. */
  receiveBinary(): void;
  /** Stops the mapper and closes its browser connection; the session's browser is untouched. */
  close(): void;
}

/** Starts a mapper over a new CDP connection; a browser that cannot be reached is `unavailable`. */
export async function startBidiMapper(opts: BidiMapperOptions): Promise<BidiMapperSession> {
  const mapper = await loadMapper();
  let closing = false;
  const link = await MapperCdpLink.open(opts.wsEndpoint, {
    Emitter: mapper.EventEmitter,
    browserPath: opts.browserPath,
    onClose: () => {
      if (!closing) opts.onBrowserGone();
    },
  });
  const transport = new ClientTransport(opts.send);
  let server: BidiMapper.BidiServer;
  try {
    server = await mapper.BidiServer.createAndStart(transport, link, link.browser, '', new mapper.BidiParser());
  } catch (err) {
    closing = true;
    link.close();
    if (err instanceof DomainError) throw err;
    throw unavailable('browser_unreachable', `the WebDriver BiDi mapper could not start on the session's browser: ${(err as Error).message}`);
  }
  return {
    receive: (text) => transport.receive(text),
    receiveBinary: () => transport.refuse(null, 'binary messages are not WebDriver BiDi commands'),
    close: () => {
      if (closing) return;
      closing = true;
      server.close();
      link.close();
    },
  };
}

/** The mapper's side of the client's WebSocket: whole commands in, whole messages out. */
class ClientTransport implements BidiMapper.BidiTransport {
  private handler: ((command: Command) => Promise<void> | void) | undefined;

  constructor(private readonly out: (text: string) => void) {}

  setOnMessage(handler: (command: Command) => Promise<void> | void): void {
    this.handler = handler;
  }

  sendMessage(message: unknown): void {
    if (this.handler) this.out(JSON.stringify(message));
  }

  close(): void {
    this.handler = undefined;
  }

  receive(text: string): void {
    if (!this.handler) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.refuse(null, 'the message is not valid JSON');
    }
    const problem = envelopeProblem(parsed);
    if (problem) return this.refuse(commandId(parsed), problem);
    void Promise.resolve(this.handler(parsed as Command)).catch(() => undefined);
  }

  /** An error answer to something that never became a command; `id` is null where none could be read. */
  refuse(id: number | null, message: string): void {
    if (this.handler) this.out(JSON.stringify({ type: 'error', id, error: 'invalid argument', message }));
  }
}

/** What makes a parsed message not a command (`{id, method, params}`), if anything. */
function envelopeProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `a command is a JSON object, not ${jsonType(value)}`;
  const { id, method, params } = value as Record<string, unknown>;
  if (commandId(value) === null) return `a command's id is an integer of 0 or more, not ${jsonType(id)}`;
  if (typeof method !== 'string') return `a command's method is a string, not ${jsonType(method)}`;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return `a command's params are an object, not ${jsonType(params)}`;
  const channel = (value as Record<string, unknown>)['goog:channel'];
  if (channel !== undefined && typeof channel !== 'string') return `goog:channel is a string, not ${jsonType(channel)}`;
  return undefined;
}

function commandId(value: unknown): number | null {
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

function jsonType(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

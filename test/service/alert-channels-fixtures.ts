// Test doubles for the alert channel tests: an alert with every link, a real HTTP receiver that records
// what it gets and answers as told (or never), a real SMTP server keeping what it accepts, made-up names
// for the resolver, and deps whose clock is fixed and whose waits are recorded instead of waited.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerOptions } from 'smtp-server';
import { EgressPolicy, ServicePorts } from '../../src/service/host/network/index.js';
import type { Alert } from '../../src/service/host/monitors/alert.js';
import { allowAddressUnder, type DeliveryDeps, type Resolve } from '../../src/service/host/monitors/channels/index.js';

export const NOW_MS = 1_800_000_000_000;
export const NOW_S = NOW_MS / 1000;
export const local = allowAddressUnder(new EgressPolicy('local', new ServicePorts()));
export const hosted = allowAddressUnder(new EgressPolicy('hosted', new ServicePorts()));

export function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    id: 'alrt_1',
    kind: 'failing',
    check: { id: 'chk_checkout', name: 'Checkout', suite: 'shop', file: 'checkout.yaml' },
    status: 'failing',
    consecutive_failures: 2,
    failing_since: '2026-11-28T01:00:00.000Z',
    run: { id: 'run_9', url: 'https://bcs.example/runs/run_9', console_url: 'https://bcs.example/console/runs/run_9', duration_ms: 12_345 },
    failure: {
      step: "click 'Pay'",
      message: 'Timeout waiting for <button id="pay"> & friends',
      screenshot_url: 'https://bcs.example/runs/run_9/artifacts/shot.png',
      replay_url: 'https://bcs.example/replays/rp_1?t=12.5&marker=pay',
      trace_url: 'https://bcs.example/runs/run_9/artifacts/trace.zip',
    },
    kept_session: { session_id: 'ses_1', live_view_url: 'https://bcs.example/live/ses_1', until: '2026-11-28T02:00:00.000Z' },
    summary: "Checkout failing at click 'Pay' (2 runs)",
    at: '2026-11-28T01:05:00.000Z',
    ...overrides,
  };
}

export interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status: number; headers?: Record<string, string>; body?: string };
export type Answer = Reply | 'hang' | ((seen: Seen) => Reply);

/** A receiver on 127.0.0.1 recording every request; it answers from `answers` in turn (the last one repeats). */
export class Receiver {
  readonly seen: Seen[] = [];
  private answers: Answer[] = [{ status: 200 }];
  private readonly sockets = new Set<Socket>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      this.seen.push(seen);
      const answer = this.answers.length > 1 ? this.answers.shift()! : this.answers[0]!;
      if (answer === 'hang') return;
      const a = typeof answer === 'function' ? answer(seen) : answer;
      res.writeHead(a.status, a.headers).end(a.body ?? '');
    });
  });

  async start(): Promise<this> {
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  answer(...answers: Answer[]): void {
    this.answers = answers;
  }

  reset(): void {
    this.seen.length = 0;
    this.answers = [{ status: 200 }];
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Deps that record the waits between attempts instead of waiting. */
export function deps(overrides: Partial<DeliveryDeps> = {}): DeliveryDeps & { slept: number[] } {
  const slept: number[] = [];
  return { allowAddress: local, now: () => NOW_MS, sleep: async (ms) => void slept.push(ms), slept, ...overrides };
}

/** Names made up for the tests, resolved to the given addresses; counts the lookups. */
export function names(map: Record<string, string[]>): Resolve & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const list = map[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** The session was TLS (implicit or upgraded by STARTTLS) when the message came. */
  secure: boolean;
  user?: string;
}

export interface TestSmtpServer {
  port: number;
  mails: ReceivedMail[];
  connections(): number;
  close(): Promise<void>;
}

/** A real SMTP server on port 0 that keeps each message it accepts. */
export async function smtpServer(options: SMTPServerOptions): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  let connections = 0;
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    onConnect: (_session, cb) => void (connections++, cb()),
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const env = session.envelope;
        mails.push({
          from: env.mailFrom ? env.mailFrom.address : '',
          to: env.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        cb();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A message's headers unfolded and its quoted-printable parts decoded, enough to read what a person sees. */
export function readable(raw: string): string {
  return raw
    .replace(/\r\n[ \t]+/g, ' ')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** An onAuth accepting `user` with `pass` only, refusing anything else as a real server does (535). */
export const checkAuth =
  (user: string, pass: string) => (auth: SMTPServerAuthentication, _session: unknown, cb: (err: Error | null, res?: { user: string }) => void) =>
    auth.username === user && auth.password === pass ? cb(null, { user }) : cb(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));


// An API replica (`bcs serve --role api`): holds no state and runs no browser. Every request goes to a
// browser host: a create to the host placement picks, anything addressed to one session (its routes, CDP
// and BiDi WebSockets, live view, logs and telemetry streams, replays) to the host that runs it, the rest
// to the leader host. Hosts validate, authenticate and answer; a replica adds the cluster key and passes
// bytes. Any number of replicas serve one cluster behind a load balancer.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '../../api/types.js';
import { bearerToken, PROJECT_HEADER } from '../auth.js';
import { answerClientError, rawErrorAnswer } from '../errors.js';
import { closeWithin, trackSockets } from '../http-shutdown.js';
import { ApiKeysRepo, KEY_CACHE_MS } from '../store/api-keys-repo.js';
import { BrowsersRepo } from '../store/browsers-repo.js';
import { HostsRepo, type HostRow } from '../store/hosts-repo.js';
import { describeStore, openStore } from '../store/open-store.js';
import { ProjectsRepo } from '../store/projects-repo.js';
import { CLUSTER_KEY_HEADER, ClusterKey } from './cluster-key.js';
import { forwardHttp, forwardUpgrade, hostAgent, type Target } from './forward.js';
import { HostDirectory } from './host-directory.js';
import { DEFAULT_HOST_SILENT_MS } from './host-role.js';
import { leaderOf, placeCreate } from './placement.js';
import { ReplicaMetrics } from './replica-metrics.js';

export interface ReplicaOptions {
  host?: string;
  port?: number;
  databaseUrl: string;
  /** The file holding the key replicas and hosts share (cluster-key.ts). */
  clusterKeyFile: string;
  /** An admin API key to register (stored hashed), as `bcs serve` does. */
  apiKey?: string;
  logLevel?: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  now?: () => Date;
  /** How often the live hosts are read (ms). */
  refreshMs?: number;
  /** How long a host may be silent before it is declared gone (ms). */
  hostSilentMs?: number;
}

export interface RunningReplica {
  baseUrl: string;
  database: string;
  /** The hosts as this replica last read them. */
  hosts(): readonly HostRow[];
  /** Reads the hosts now (tests, and a start that waits for its first host). */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 5000;
/** Sessions whose host a replica remembers (a few MB at most). */
const PLACEMENTS_KEPT = 50_000;
/** What a session's requests start with: `/browsers/{id or name}/...` and the live view page `/live/{id}`. */
const SESSION_PATH = /^\/(?:browsers|live)\/([^/]+)/;

export async function startReplica(opts: ReplicaOptions): Promise<RunningReplica> {
  const now = opts.now ?? (() => new Date());
  const key = ClusterKey.fromFile(opts.clusterKeyFile);
  const db = await openStore({ dataDir: '', databaseUrl: opts.databaseUrl, cluster: true });
  const keys = new ApiKeysRepo(db, { cacheMs: KEY_CACHE_MS });
  const browsers = new BrowsersRepo(db);
  const projects = new ProjectsRepo(db);
  const log = replicaLog(opts.logLevel ?? 'warn');
  if (opts.apiKey !== undefined) await keys.add(opts.apiKey, { name: 'admin', now: now() });
  const directory = new HostDirectory({
    repo: new HostsRepo(db),
    refreshMs: opts.refreshMs ?? 500,
    silentMs: opts.hostSilentMs ?? DEFAULT_HOST_SILENT_MS,
    warn: log.warn,
  });
  const metrics = new ReplicaMetrics(directory);
  await directory.start();

  const agent = hostAgent();
  const targetFor = (req: IncomingMessage, host: HostRow): Target => ({
    agent,
    url: new URL(host.url),
    headers: {
      [CLUSTER_KEY_HEADER]: key.header,
      'x-forwarded-for': [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', '),
    },
  });

  const placements = new Map<string, { host_id: string | null }>();
  const remember = (id: string, placed: { host_id: string | null }) => {
    if (placements.has(id)) return;
    // Oldest first out: a Map iterates in insertion order.
    if (placements.size >= PLACEMENTS_KEPT) placements.delete(placements.keys().next().value!);
    placements.set(id, { host_id: placed.host_id });
  };

  /** The project a request acts in, for finding a session by name (names are unique per project). */
  const projectOf = async (req: IncomingMessage): Promise<string | null | undefined> => {
    const token = bearerToken(req.headers.authorization);
    const record = token ? await keys.authenticate(token, now()) : undefined;
    if (!record) return undefined;
    if (record.project_id !== null) return record.project_id;
    const chosen = req.headers[PROJECT_HEADER];
    const name = (Array.isArray(chosen) ? chosen[0] : chosen)?.trim();
    return name ? ((await projects.find(name))?.id ?? undefined) : null;
  };

  /** Where a request goes; undefined when no host is live. */
  const route = async (req: IncomingMessage, path: string): Promise<{ host: HostRow | undefined; create: boolean }> => {
    if (path === '/browsers' && req.method === 'POST') return { host: placeCreate(directory.live, (id) => directory.creating(id)), create: true };
    const match = SESSION_PATH.exec(path);
    if (match) {
      let idOrName: string | undefined;
      try {
        idOrName = decodeURIComponent(match[1]!);
      } catch {
        idOrName = undefined; // a malformed escape: the leader answers it as any host would (400)
      }
      if (idOrName !== undefined) {
        // A session never moves: where it runs is read once per id, then kept.
        const placed = placements.get(idOrName) ?? (await browsers.placement(idOrName));
        if (placed) remember(idOrName, placed);
        let hostId = placed?.host_id ?? null;
        if (!placed) {
          const projectId = await projectOf(req);
          if (projectId !== undefined) hostId = (await browsers.placementByName(projectId, idOrName))?.host_id ?? null;
        }
        // A session whose host is gone is answered by the leader from its record (ended, host_lost).
        const owner = directory.get(hostId);
        if (owner) return { host: owner, create: false };
      }
    }
    return { host: leaderOf(directory.live), create: false };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refuse = (status: number, body: ErrorBody, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const path = pathOf(req.url);
    if (path === undefined) return refuse(400, { code: 'bad_request', message: 'the request URL is not valid' });
    if (path === '/metrics' && req.method === 'GET') return metrics.serve(req, res, keys, now(), refuse);
    const { host, create } = await route(req, path);
    if (!host) return refuse(503, noHosts, { 'retry-after': '5' });
    metrics.forwarded(create ? 'create' : 'http');
    if (create) res.on('close', directory.sent(host.id));
    forwardHttp(req, res, targetFor(req, host), (status, body) => {
      metrics.unreachable();
      refuse(status, body);
    });
  };

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const path = pathOf(req.url);
    if (path === undefined) return void socket.end(rawErrorAnswer(400, { code: 'bad_request', message: 'the request URL is not valid' }));
    const { host } = await route(req, path);
    if (!host) return void socket.end(rawErrorAnswer(503, noHosts, { 'retry-after': '5' }));
    metrics.forwarded('websocket');
    forwardUpgrade(req, socket, head, targetFor(req, host), (status, body) => {
      metrics.unreachable();
      socket.end(rawErrorAnswer(status, body));
    });
  };

  const server = createServer((req, res) =>
    void handle(req, res).catch((err: unknown) => {
      log.error({ err: (err as Error).message }, 'a request could not be routed');
      if (res.headersSent) res.destroy();
      else res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'internal', message: 'the request could not be routed' }));
    }),
  );
  server.on('clientError', answerClientError);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    void upgrade(req, socket, head).catch((err: unknown) => {
      log.error({ err: (err as Error).message }, 'an upgrade could not be routed');
      socket.destroy();
    }),
  );
  const sockets = trackSockets(server);
  const bind = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(opts.port ?? 0, bind, () => resolve()));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://${bind.includes(':') ? `[${bind}]` : bind}:${port}`,
    database: describeStore({ dataDir: '', databaseUrl: opts.databaseUrl }),
    hosts: () => directory.live,
    refresh: () => directory.refresh(),
    close: () =>
      (closing ??= (async () => {
        directory.close();
        await closeWithin(() => new Promise<void>((resolve) => server.close(() => resolve())), sockets, SHUTDOWN_GRACE_MS, (open) =>
          log.warn({ open }, 'connections still open at shutdown were cut'),
        );
        agent.destroy();
        await db.close();
      })()),
  };
}

const noHosts: ErrorBody = { code: 'no_hosts', message: 'no browser host is available in the cluster right now; try again shortly' };

function pathOf(url: string | undefined): string | undefined {
  try {
    return new URL(url ?? '/', 'http://replica').pathname;
  } catch {
    return undefined;
  }
}

/** Lines on stderr, as the service's own logger writes them: JSON, one per event, never a header or a query. */
function replicaLog(level: NonNullable<ReplicaOptions['logLevel']>) {
  const order = ['debug', 'info', 'warn', 'error', 'silent'];
  const at = (name: string) => (obj: object, msg: string) => {
    if (order.indexOf(name) < order.indexOf(level)) return;
    process.stderr.write(`${JSON.stringify({ level: name, time: Date.now(), role: 'api', msg, ...obj })}\n`);
  };
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

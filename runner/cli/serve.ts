// `bcs serve`: the Browser Cloud API standalone. `--role all` (the default) is one process with everything;
// a cluster runs `--role api` (replicas: stateless, they place and route) and `--role host` (browser hosts)
// on one PostgreSQL, with a shared cluster key. `bcs probe` asks a running one whether it serves.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { EXIT } from '../suite/exit-codes.js';
import { addApiKeyOptions, resolveApiKey } from './api-key.js';
import { databaseUrlOption, secretsKeyLine } from './database-url.js';
import { packageRoot } from '../suite/package-root.js';
import { integerOption, UsageError } from './usage-error.js';

type Finish = (code: number) => void;

export function registerServe(program: Command, finish: Finish): void {
  addApiKeyOptions(program.command('serve'), 'the admin API key (generated and printed once when none is given; a cluster host needs one)')
    .description('run the Browser Cloud API service standalone, or one role of a cluster')
    .addOption(
      new Option('--role <role>', 'all: one process serves everything; api: a stateless replica that places and routes; host: a browser host of a cluster')
        .choices(['all', 'api', 'host'])
        .default('all')
        .env('BCS_ROLE'),
    )
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8340')
    .addOption(new Option('--public-url <url>', "the origin clients reach it by behind a TLS proxy, load balancer or ingress (https://browsers.example.com): every URL in an answer starts with it (default: each request's own scheme and host)").env('BCS_PUBLIC_URL'))
    .option('--unsandboxed', 'start even where the process sandbox (bubblewrap) does not work: sessions then run on the host (see the banner)')
    .addOption(
      new Option('--data-dir <dir>', 'where the database and session files live').default(
        join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'browser-scenarios'),
      ),
    )
    .addOption(new Option('--blob-dir <dir>', "where profiles, extensions, app bundles, replays and run artifacts are kept (default: the data dir); a cluster's hosts share one volume").env('BCS_BLOB_DIR'))
    .addOption(
      new Option('--database-url <url>', 'keep state in this PostgreSQL database (postgres://user@host:5432/db) instead of SQLite in the data dir; the password from BCS_DATABASE_URL, PGPASSWORD or ~/.pgpass, never on the command line').env('BCS_DATABASE_URL'),
    )
    .addOption(
      new Option('--secrets-key-file <path>', "the 32-byte key (raw, base64 or hex) sealed secrets are encrypted with, instead of one made in the data dir; give every process on one --database-url the same file").env('BCS_SECRETS_KEY_FILE'),
    )
    .addOption(new Option('--cluster-key-file <path>', "the 32-byte key (raw, base64 or hex) a cluster's replicas and hosts share: hosts answer only requests that carry it").env('BCS_CLUSTER_KEY_FILE'))
    .addOption(new Option('--advertise-url <url>', 'a host: the URL replicas reach it at (http://10.0.0.5:8341); default: the address it listens on').env('BCS_ADVERTISE_URL'))
    .addOption(new Option('--host-id <id>', "a host: its id in the cluster, kept across its restarts (default: the advertised host and port)").env('BCS_HOST_ID'))
    .addOption(new Option('--chromium <path>', 'Chromium executable to launch').env('BCS_CHROMIUM'))
    .addOption(new Option('--headless-shell <path>', 'what runs plain headless sessions, or off for the full Chromium in all (default: chromium-headless-shell beside the system Chromium)').env('BCS_HEADLESS_SHELL'))
    .addOption(new Option('--log-level <level>', 'log level').choices(['silent', 'error', 'warn', 'info', 'debug']).default('info'))
    .option('--standby <n>', 'browsers kept launched so POST /browsers with default options is a handoff (0 turns it off)', '1')
    .option('--max-sessions <n>', "sessions this host runs at once, on-demand and pooled (what its memory holds); a create beyond waits in line, then answers 503 with Retry-After (default: no bound but the org's limits)")
    .option('--create-queue-timeout <seconds>', 'how long a create waits in line for a free slot on a full host', '30')
    .option('--drain-seconds <seconds>', 'on SIGTERM, stop taking new sessions and wait this long for the running ones to end before stopping (SIGINT, or a second signal, stops at once)', '0')
    .addOption(
      new Option('--network-policy <policy>', "sessions' egress: hosted refuses private and loopback addresses not in a browser's network.private_hosts; local also lets them reach this host's loopback")
        .choices(['hosted', 'local'])
        .default('hosted'),
    )
    .addOption(new Option('--alert-private-networks <list>', "comma-separated private addresses and ranges (10.0.0.0/8, 192.168.1.5) monitors' alert channels may reach although the network policy refuses private destinations: an internal webhook receiver or mail relay").env('BCS_ALERT_PRIVATE_NETWORKS'))
    .option('--runs-retention-days <days>', 'delete kept runs (`bcs run --report-to`) and their artifact files this many days after their last activity (0: keep them forever)', '90')
    .option('--runs-stale-hours <hours>', 'end a kept run as interrupted when its runner has sent nothing for this many hours (0: never)', '6')
    .option('--strict-wire', "serve the hosted API's wire only: our extension routes answer 404, our extension fields are left out of answers and refused in requests (to try clients against what the hosted service has)")
    .action(async (o, cmd: Command) => {
      const role = o.role as 'all' | 'api' | 'host';
      const databaseUrl = databaseUrlOption(o.databaseUrl, cmd.getOptionValueSource('databaseUrl'));
      if (role !== 'all') {
        if (!databaseUrl) throw new UsageError(`--role ${role}: a cluster keeps its state in PostgreSQL; give --database-url (or BCS_DATABASE_URL)`);
        if (!o.clusterKeyFile) throw new UsageError(`--role ${role}: give the key replicas and hosts share with --cluster-key-file (or BCS_CLUSTER_KEY_FILE)`);
      } else if (o.clusterKeyFile || o.advertiseUrl || o.hostId) {
        throw new UsageError('--cluster-key-file, --advertise-url and --host-id belong to a cluster role: add --role host (or --role api)');
      }
      if (role === 'api') return serveReplica(o, databaseUrl!, finish);
      return serveService(o, role, databaseUrl, finish);
    });

  addApiKeyOptions(program.command('probe'), 'an API key of the service (org-wide)')
    .description('ask a running bcs serve whether it serves (exit 0) or not (exit 1): for Kubernetes exec probes and scripts')
    .option('--url <url>', 'the service', 'http://127.0.0.1:8340')
    .option('--live', 'only whether it answers at all (liveness), not whether it takes work (readiness)')
    .addOption(new Option('--cluster-key-file <path>', "the cluster key, for a cluster host").env('BCS_CLUSTER_KEY_FILE'))
    .option('--timeout <seconds>', 'how long to wait for the answer', '5')
    .action(async (o) => {
      const { probe } = await import('./probe.js');
      const verdict = await probe({ url: o.url, apiKey: resolveApiKey(o), clusterKeyFile: o.clusterKeyFile, live: o.live === true, timeoutMs: integerOption('--timeout', o.timeout, 1, 300) * 1000 });
      process.stdout.write(`${verdict.message}\n`);
      finish(verdict.ok ? 0 : 1);
    });
}

function publicUrlOption(value: string | undefined, publicOriginOf: (url: string) => string): void {
  if (value === undefined) return;
  try {
    publicOriginOf(value);
  } catch (err) {
    throw new UsageError(`--public-url: ${(err as Error).message}`);
  }
}

async function serveService(o: Record<string, any>, role: 'all' | 'host', databaseUrl: string | undefined, finish: Finish): Promise<void> {
  const apiKey = resolveApiKey(o);
  // Each host would otherwise add a key of its own at every start, printed to whoever reads its log.
  if (role === 'host' && !apiKey) throw new UsageError('--role host: give the admin API key with --api-key-file or BCS_API_KEY (a cluster never generates one)');
  // Links a host makes outside a request (a login flow's live view and hosted page) must reach it through a
  // replica: clients never reach a host directly.
  if (role === 'host' && !o.publicUrl) throw new UsageError("--role host: give the replicas' public origin with --public-url (or BCS_PUBLIC_URL): clients reach hosts only through it");
  const port = integerOption('--port', o.port, 0, 65535);
  const standby = integerOption('--standby', o.standby, 0, 100);
  const maxSessions = o.maxSessions === undefined ? undefined : integerOption('--max-sessions', o.maxSessions, 1, 100_000);
  const queueTimeoutS = integerOption('--create-queue-timeout', o.createQueueTimeout, 0, 3600);
  const drainS = integerOption('--drain-seconds', o.drainSeconds, 0, 86_400);
  const runsRetentionDays = integerOption('--runs-retention-days', o.runsRetentionDays, 0, 36_500);
  const runsStaleHours = integerOption('--runs-stale-hours', o.runsStaleHours, 0, 8760);
  const { startService, SandboxRequiredError, DatabaseInUseError, SecretsKeyError, publicOriginOf, alertNetworksOf } = await import('../../src/service/index.js');
  publicUrlOption(o.publicUrl, publicOriginOf);
  const alertPrivateNetworks = o.alertPrivateNetworks ? String(o.alertPrivateNetworks).split(',').map((e: string) => e.trim()).filter(Boolean) : undefined;
  try {
    alertNetworksOf(alertPrivateNetworks ?? []);
  } catch (err) {
    throw new UsageError(`--alert-private-networks: ${(err as Error).message}`);
  }
  if (o.advertiseUrl !== undefined) publicUrlOption(o.advertiseUrl, (u) => publicOriginOf(u));
  if (role === 'host' && (o.host === '0.0.0.0' || o.host === '::') && !o.advertiseUrl) {
    throw new UsageError('--role host on every address: say which one replicas reach it at with --advertise-url');
  }
  const service = await startService({
    host: o.host,
    port,
    publicUrl: o.publicUrl,
    apiKey,
    requireSandbox: !o.unsandboxed,
    dataDir: resolve(o.dataDir),
    blobDir: o.blobDir ? resolve(o.blobDir) : undefined,
    databaseUrl,
    secretsKeyFile: o.secretsKeyFile ? resolve(o.secretsKeyFile) : undefined,
    cluster: role === 'host' ? { clusterKeyFile: resolve(o.clusterKeyFile), advertiseUrl: o.advertiseUrl, hostId: o.hostId } : undefined,
    chromium: o.chromium || undefined,
    headlessShell: o.headlessShell || undefined,
    logLevel: o.logLevel,
    standby,
    maxSessions,
    createQueueTimeoutMs: queueTimeoutS * 1000,
    networkPolicy: o.networkPolicy,
    strictWire: o.strictWire === true,
    // Deployed monitors run as `bcs run` processes of this very package.
    monitorRunner: { packageDir: packageRoot() },
    alertPrivateNetworks,
    runsRetentionDays,
    runsStaleAfterMs: runsStaleHours * 3_600_000,
  }).catch((err: unknown) => {
    if (err instanceof DatabaseInUseError) {
      process.stderr.write(`bcs serve: refusing to start: ${err.message}\n`);
      return finish(EXIT.infrastructure);
    }
    if (err instanceof SecretsKeyError) {
      process.stderr.write(`bcs serve: refusing to start: ${err.message}\n`);
      return finish(EXIT.invalid);
    }
    if (!(err instanceof SandboxRequiredError)) throw err;
    process.stderr.write(
      `bcs serve: refusing to start: ${err.message}.\n` +
        'bcs serve: without the sandbox every session runs on this host, where what runs in it can reach what its user can. ' +
        'Install bubblewrap (apt-get install bubblewrap) or start with --unsandboxed to accept that.\n',
    );
    return finish(EXIT.infrastructure);
  });
  if (!service) return;
  process.stdout.write(`BCS_BASE_URL=${service.baseUrl}\n`);
  if (service.apiKeyGenerated) process.stdout.write(`BCS_API_KEY=${service.apiKey}\n`);
  process.stderr.write(
    `bcs serve: listening on ${service.baseUrl}; chromium ${service.chromium.path} (${service.chromium.source})` +
      `${service.headlessShell ? `; headless sessions: ${service.headlessShell.path}` : ''}; data in ${resolve(o.dataDir)}\n` +
      (service.cluster ? `bcs serve: role: host '${service.cluster.hostId}' of a cluster; replicas reach it at ${service.cluster.url}; it answers only them\n` : '') +
      `bcs serve: state: ${service.database}\n` +
      (service.publicUrl ? `bcs serve: answers' URLs start with ${service.publicUrl} (--public-url)\n` : '') +
      secretsKeyLine(service, databaseUrl !== undefined) +
      `bcs serve: ${service.sandbox?.network ? '' : 'WARNING: '}isolation: ${service.isolation}\n` +
      `bcs serve: network policy: ${service.networkPolicy}\n` +
      (service.strictWire || service.cluster ? '' : `bcs serve: console: ${service.baseUrl}/ (sign in with an API key)\n`) +
      (service.strictWire ? 'bcs serve: wire: the hosted API only (--strict-wire): no extension routes or fields of ours\n' : '') +
      (service.apiKeyGenerated ? 'bcs serve: the API key above is shown only once; only its hash is stored\n' : ''),
  );
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    // A second signal, or SIGINT (a person at a terminal), stops at once; SIGTERM (an orchestrator) drains.
    if (stopping || signal === 'SIGINT' || drainS === 0) {
      process.stderr.write('bcs serve: stopping; closing every browser\n');
      await service.close();
    } else {
      stopping = true;
      process.stderr.write(`bcs serve: draining: no new sessions; stopping once the running ones end, in ${drainS} s at most\n`);
      await service.drain(drainS * 1000);
    }
    finish(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function serveReplica(o: Record<string, any>, databaseUrl: string, finish: Finish): Promise<void> {
  const port = integerOption('--port', o.port, 0, 65535);
  const { startReplica, DatabaseInUseError, SecretsKeyError } = await import('../../src/service/index.js');
  const replica = await startReplica({ host: o.host, port, databaseUrl, clusterKeyFile: resolve(o.clusterKeyFile), apiKey: resolveApiKey(o), logLevel: o.logLevel }).catch(
    (err: unknown) => {
      if (!(err instanceof DatabaseInUseError || err instanceof SecretsKeyError)) throw err;
      process.stderr.write(`bcs serve: refusing to start: ${err.message}\n`);
      return finish(err instanceof SecretsKeyError ? EXIT.invalid : EXIT.infrastructure);
    },
  );
  if (!replica) return;
  process.stdout.write(`BCS_BASE_URL=${replica.baseUrl}\n`);
  const hosts = replica.hosts();
  process.stderr.write(
    `bcs serve: listening on ${replica.baseUrl}; role: API replica (places creates, routes to browser hosts)\n` +
      `bcs serve: state: ${replica.database}\n` +
      `bcs serve: hosts: ${hosts.length ? hosts.map((h) => `${h.id} (${h.url})`).join(', ') : 'none yet; creates answer 503 until one registers'}\n`,
  );
  const stop = async () => {
    process.stderr.write('bcs serve: stopping; requests under way get 5 s to finish\n');
    await replica.close();
    finish(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

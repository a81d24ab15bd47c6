// Where a run's API calls go: a remote service (base URL + key), or by default the embedded service
// started in-process on an ephemeral loopback port with a throwaway data dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/index.js';
import { startEmbeddedService } from './embedded-service.js';
import type { PoolSettings } from './config.js';
import type { RunTargetInfo } from '../reporters/reporter.js';

export interface TargetOptions {
  baseUrl?: string;
  apiKey?: string;
  chromium?: string;
  /** The embedded service's headless shell for plain headless browsers: a path, or `off` (ServiceOptions). */
  headlessShell?: string;
  /** Pools the embedded service is given before anything runs (bcs.config.yaml `pools`). */
  pools?: Record<string, PoolSettings>;
  /** The embedded service shows headful browsers on this display (`--headed`). */
  display?: { display: string; xauthority?: string };
  /** Embedded service: browsers kept launched for plain creates (default: one, launched once; see below). */
  standby?: number;
}

export interface Target {
  info: RunTargetInfo;
  client: CloudClient;
  /** The key `client` sends, for callers that build their own clients (the Vitest fixtures). */
  apiKey: string;
  close(): Promise<void>;
}

export async function openTarget(opts: TargetOptions): Promise<Target> {
  if (opts.baseUrl) {
    if (!opts.apiKey) throw new TargetError('--base-url needs an API key: set BCS_API_KEY or pass --api-key-file');
    return {
      info: { kind: 'remote', base_url: opts.baseUrl },
      client: new CloudClient({ baseUrl: opts.baseUrl, apiKey: opts.apiKey }),
      apiKey: opts.apiKey,
      close: async () => {},
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'bcs-embedded-'));
  try {
    // One standby browser, launched once as the service starts: the run's first browser, when it is a default
    // one (every page-only scenario's shared session is), launches while playwright-core and the scenarios
    // load rather than after. It is not refilled (a spare launching beside the scenarios would only take
    // their CPU), and a first browser with its own settings closes it. No concurrency limit: `--workers N`
    // creates N browsers at once and must never be refused a session here.
    // The local-development egress policy: scenarios reach sites on this machine (a dev server, serve:,
    // web_server:) as a Playwright user expects; private networks still need network.private_hosts.
    const service = await startEmbeddedService({
      dataDir,
      chromium: opts.chromium,
      headlessShell: opts.headlessShell,
      logLevel: 'silent',
      standby: opts.standby ?? 1,
      standbyOnce: opts.standby === undefined,
      maxConcurrentSessions: null,
      display: opts.display,
      networkPolicy: 'local',
      // A context per scenario: a spare renderer would be made for each context and killed with it unused.
      spareRenderers: false,
    });
    // Your machine, your scenarios: the embedded service may run unsandboxed, but says so, once a run.
    if (!service.sandboxed) {
      process.stderr.write(
        `bcs: sessions run unsandboxed (${service.sandboxReason}): exec and spawn run on this host and see its files as their user does, ` +
          `where /home/kernel is not the session's folder (use $HOME); install bubblewrap to sandbox them\n`,
      );
    }
    const full = service.chromium.source === 'npm' ? 'packaged headless shell' : service.chromium.path;
    const chromiumLabel = service.headlessShell ? `${full}; headless: ${service.headlessShell.path}` : full;
    const client = new CloudClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const close = async () => {
      await service.close();
      await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    };
    // Created now, so they fill while the run prepares; they end with the service.
    const failed = await createPools(client, opts.pools ?? {});
    if (failed) {
      await close();
      throw new TargetError(failed);
    }
    return { info: { kind: 'embedded', base_url: service.baseUrl, chromium: chromiumLabel }, client, apiKey: service.apiKey, close };
  } catch (err) {
    if (err instanceof TargetError) throw err;
    await rm(dataDir, { recursive: true, force: true });
    throw new TargetError(`could not start the embedded service: ${(err as Error).message}`);
  }
}

/** Creates the config's pools; returns what went wrong with the first one the service refused. */
async function createPools(client: CloudClient, pools: Record<string, PoolSettings>): Promise<string | undefined> {
  for (const [name, settings] of Object.entries(pools)) {
    try {
      await client.request('POST', '/browser_pools', { body: { ...settings, name } });
    } catch (err) {
      return `pool '${name}' in bcs.config.yaml: ${err instanceof ApiError ? err.message : (err as Error).message}`;
    }
  }
  return undefined;
}

/** The target could not be reached or started: an infrastructure error (exit code 3). */
export class TargetError extends Error {
  override name = 'TargetError';
}

// The monitors' parts put together for the service: deployed suites' checks run as `bcs run` processes of the
// runner package the composition root names, against this service, with a key of the suite's project; their
// alerts go out under the service's network policy. One scheduler per database leads them (the process, or a
// cluster's leader); `liveHosts` says which owners of claims are still alive.
import { join } from 'node:path';
import { newId } from '../../ids.js';
import type { MonitorsRepo } from '../../store/monitors-repo.js';
import type { AppKeys } from '../apps/index.js';
import type { CredentialStore } from '../credentials/index.js';
import { EgressPolicy, PrivateHosts, parseAddress, privateHostProblem } from '../network/index.js';
import type { Sandbox } from '../process/index.js';
import type { Runs } from '../runs/index.js';
import { AlertSender } from './alerts.js';
import { SuiteBundles } from './bundle.js';
import { allowAddressUnder, deliver } from './channels/index.js';
import { CheckLauncher } from './check-launcher.js';
import { runCheckAttempt } from './check-run.js';
import { Monitors } from './monitors.js';
import { MonitorScheduler } from './scheduler.js';
import { readAllSecrets } from './secrets.js';

export interface MonitorsSetup {
  repo: MonitorsRepo;
  sandbox: Sandbox | null;
  dataDir: string;
  blobDir: string;
  /** The runner package (undefined: no checks run here, deploys are refused). */
  packageDir: string | undefined;
  credentials: CredentialStore;
  env: NodeJS.ProcessEnv;
  policy: EgressPolicy;
  alertNetworks: PrivateHosts;
  keys: AppKeys;
  runs: Runs;
  /** Where checks reach this service (known once it listens). */
  baseUrl: () => string;
  /** Where links in alerts point (the public URL, else the base URL). */
  origin: () => string;
  now: () => Date;
  /** A cluster host's id: the owner of its claims. */
  hostId: string | undefined;
  liveHosts: () => readonly string[];
  concurrency: number;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export async function composeMonitors(s: MonitorsSetup): Promise<{ monitors: Monitors; scheduler: MonitorScheduler; launcher: CheckLauncher }> {
  const bundles = new SuiteBundles(join(s.blobDir, 'monitors'));
  await bundles.prepare();
  const launcher = new CheckLauncher({ sandbox: s.sandbox, dir: join(s.dataDir, 'monitor-runs'), serviceIsRoot: process.getuid?.() === 0, packageDir: s.packageDir });
  const secrets = { credentials: s.credentials, env: s.env };
  const allowAddress = allowAddressUnder(s.policy, s.alertNetworks);
  const alerts = new AlertSender({
    repo: s.repo,
    secrets,
    deliver: (channel, alert) => deliver(channel, alert, { allowAddress, now: () => s.now().getTime() }),
    origin: s.origin,
    now: s.now,
    log: s.log,
  });
  const scheduler = new MonitorScheduler({
    repo: s.repo,
    attempt: (check, suite, signal) =>
      runCheckAttempt(
        { launcher, keys: s.keys, runs: s.runs, baseUrl: s.baseUrl, origin: s.origin, now: s.now },
        { check, suite, bundleDir: bundles.path(suite.bundle), trigger: check.due_reason === 'manual' ? 'manual' : 'schedule', signal },
        () => readAllSecrets(secrets, check.project_id, suite.settings.secrets ?? {}),
      ),
    alert: (raised) => alerts.raise(raised),
    now: s.now,
    owner: s.hostId ?? `local:${newId(8)}`,
    liveOwners: s.hostId === undefined ? undefined : async () => s.liveHosts(),
    concurrency: s.concurrency,
    log: s.log,
  });
  const monitors = new Monitors({ repo: s.repo, bundles, now: s.now, unavailableReason: () => launcher.unavailableReason, wake: () => void scheduler.tick() });
  return { monitors, scheduler, launcher };
}

/** An --alert-private-networks entry that is not an address or a range. */
export class AlertNetworksError extends Error {
  override name = 'AlertNetworksError';
}

/** The alert channels' allowed private networks; throws on an entry that is not an address or a range. */
export function alertNetworksOf(entries: readonly string[]): PrivateHosts {
  for (const entry of entries) {
    if (entry.includes('/') ? privateHostProblem(entry) : !parseAddress(entry)) {
      throw new AlertNetworksError(`'${entry}' is not an address or a range (10.0.0.0/8, 192.168.1.5, fd00::/8): alerts are checked on the address they connect to`);
    }
  }
  return new PrivateHosts(entries);
}

// What makes a service one browser host of a cluster: the cluster key read (before anything starts), the
// host's identity and address, its membership (registration, heartbeat, leader lock) and, in a Kubernetes
// pod, the pod's deletion cost.
import type { PgDatabase } from '../store/pg/database.js';
import { HostsRepo, type HostLoad, type HostRow, type LostHost } from '../store/hosts-repo.js';
import type { ClusterHostOptions } from '../public.js';
import { HostMembership } from './membership.js';
import { deletionCost, inClusterPod, PodDeletionCost } from './pod-deletion-cost.js';

export const LEADER_LOCK = 'bcs.leader';
const DEFAULT_HEARTBEAT_MS = 1000;
export const DEFAULT_HOST_SILENT_MS = 10_000;

export interface HostRoleEvents {
  load(): Omit<HostLoad, 'leader'>;
  led(hosts: HostRow[]): Promise<void>;
  leading(hosts: HostRow[]): Promise<void>;
  lost(hosts: LostHost[]): void;
  declaredGone(): Promise<void>;
}

/** The URL replicas reach a host at: the one given, else the address it listens on (0.0.0.0 is no address). */
export function advertisedUrl(opts: ClusterHostOptions, listening: { host: string; port: number }): string {
  if (opts.advertiseUrl) return new URL(opts.advertiseUrl).origin;
  if (listening.host === '0.0.0.0' || listening.host === '::') {
    throw new Error('a cluster host listening on every address must say which one replicas reach it at (--advertise-url)');
  }
  const host = listening.host.includes(':') ? `[${listening.host}]` : listening.host;
  return `http://${host}:${listening.port}`;
}

/**
 * The host's id, known before it listens (its sessions' records and what it recovers at start carry it):
 * the one given, else the advertised host and port, else the address and port it listens on.
 */
export function clusterHostId(opts: ClusterHostOptions, listen: { host: string; port: number }): string {
  if (opts.hostId) return opts.hostId;
  if (opts.advertiseUrl) return new URL(opts.advertiseUrl).host;
  if (listen.port === 0) throw new Error('a cluster host on a port picked at start (0) needs a host id or an advertised URL');
  return new URL(advertisedUrl(opts, listen)).host;
}

export function joinCluster(
  opts: ClusterHostOptions,
  deps: { db: PgDatabase; id: string; url: string; maxSessions: number | null; now: () => Date; log: { info(o: object, m: string): void; warn(o: object, m: string): void } },
  events: HostRoleEvents,
): ClusterMembership {
  const membership = new HostMembership({
    hosts: new HostsRepo(deps.db),
    id: deps.id,
    url: deps.url,
    maxSessions: deps.maxSessions,
    ...events,
    tryLead: () => deps.db.holdLock(LEADER_LOCK),
    heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    silentMs: opts.hostSilentMs ?? DEFAULT_HOST_SILENT_MS,
    now: deps.now,
    log: deps.log,
  });
  // In a Kubernetes pod, the host tells its ReplicaSet what removing it would cost (docs/cluster.md).
  const pod = inClusterPod();
  if (pod && 'missing' in pod) deps.log.info({ missing: pod.missing }, "in a Kubernetes pod, but not setting its deletion cost: scale-down picks hosts regardless of their sessions");
  if (!pod || 'missing' in pod) return membership;
  const cost = new PodDeletionCost({ ...pod, load: () => deletionCost({ sessions: events.load().sessions, leader: membership.isLeader }), log: deps.log });
  return {
    get isLeader() {
      return membership.isLeader;
    },
    start: async () => {
      await membership.start();
      cost.start();
    },
    beat: () => membership.beat(),
    close: async () => {
      await cost.close();
      await membership.close();
    },
  };
}

export type ClusterMembership = Pick<HostMembership, 'start' | 'beat' | 'close' | 'isLeader'>;

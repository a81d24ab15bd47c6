// The credential a cluster's replicas and hosts share. Hosts answer only requests that carry it (replicas
// add it to everything they forward), and the session tokens in the URLs clients are given are signed
// with a key derived from it, so a URL made by any process works on the host that runs the session.
import { createHash, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { readKeyFile } from '../secrets-box.js';

export const CLUSTER_KEY_HEADER = 'x-bcs-cluster-key';

export class ClusterKey {
  private readonly digest: Buffer;
  /** What travels in CLUSTER_KEY_HEADER: the key as base64url text. */
  readonly header: string;

  constructor(private readonly key: Buffer) {
    this.header = key.toString('base64url');
    this.digest = createHash('sha256').update(this.header).digest();
  }

  static fromFile(path: string): ClusterKey {
    return new ClusterKey(readKeyFile(path, 'cluster key'));
  }

  /** Whether a request carries the key (compared in constant time). */
  carriedBy(headers: IncomingHttpHeaders): boolean {
    const given = headers[CLUSTER_KEY_HEADER];
    if (typeof given !== 'string') return false;
    return timingSafeEqual(createHash('sha256').update(given).digest(), this.digest);
  }

  /** A key for one purpose (`purpose` names it), the same in every process that holds this one. */
  derive(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, Buffer.alloc(0), `bcs ${purpose}`, 32));
  }
}

/** The header a request to a cluster host carries, from the key file (`bcs probe` on a host). */
export function clusterKeyHeaderOf(path: string): { name: string; value: string } {
  return { name: CLUSTER_KEY_HEADER, value: ClusterKey.fromFile(path).header };
}

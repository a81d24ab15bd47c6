// A pool's books kept on the leader, its browser on another host: each step is asked of that host over
// HTTP with the cluster key (cluster/pool-member-routes.ts answers). Its refusals come back as the same
// DomainErrors the host threw, so the pool treats a browser here and one there alike.
import type { BrowserRow } from '../store/browsers-repo.js';
import type { PoolRow } from '../store/pools-repo.js';
import type { LeaseTerms, MemberInfo, MemberOps } from '../host/pools/index.js';
import { DomainError, type FailureKind } from '../host/errors.js';
import { POOL_MEMBERS_PATH, memberGone } from './pool-member-routes.js';
import { CLUSTER_KEY_HEADER, type ClusterKey } from './cluster-key.js';

const LAUNCH_TIMEOUT_MS = 120_000;
/** Longer than a release's reset may take (members.ts). */
const CALL_TIMEOUT_MS = 30_000;
const KIND_OF_STATUS: Record<number, FailureKind> = { 400: 'invalid', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 503: 'unavailable' };

export class RemotePoolMembers implements MemberOps {
  constructor(
    readonly hostId: string,
    readonly url: string,
    private readonly key: ClusterKey,
  ) {}

  async launch(pool: PoolRow): Promise<string> {
    return (await this.call<{ id: string }>('POST', '', { pool_id: pool.id }))!.id;
  }

  async lease(id: string, terms: LeaseTerms): Promise<BrowserRow | undefined> {
    try {
      return await this.call<BrowserRow>('POST', `/${encodeURIComponent(id)}/lease`, terms);
    } catch (err) {
      if (err instanceof DomainError && err.code === memberGone.code) return undefined;
      throw err;
    }
  }

  async release(id: string, keep: boolean, label: string, why: string): Promise<'idle' | 'ended'> {
    return (await this.call<{ state: 'idle' | 'ended' }>('POST', `/${encodeURIComponent(id)}/release`, { keep, label, why }))!.state;
  }

  async end(id: string, why: string): Promise<void> {
    await this.call('POST', `/${encodeURIComponent(id)}/end`, { why });
  }

  async list(): Promise<MemberInfo[]> {
    return (await this.call<MemberInfo[]>('GET', ''))!;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const res = await fetch(`${this.url}${POOL_MEMBERS_PATH}${path}`, {
      method,
      headers: { [CLUSTER_KEY_HEADER]: this.key.header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // A host that stops answering is declared gone on its own; the pool does not wait on it meanwhile.
      signal: AbortSignal.timeout(method === 'POST' && path === '' ? LAUNCH_TIMEOUT_MS : CALL_TIMEOUT_MS),
    });
    if (res.status === 204) return undefined;
    const answer = (await res.json().catch(() => undefined)) as (T & { code?: string; message?: string }) | undefined;
    if (res.ok) return answer;
    const kind = KIND_OF_STATUS[res.status] ?? 'unavailable';
    throw new DomainError(kind, answer?.code ?? 'host_error', answer?.message ?? `host ${this.hostId} answered ${res.status}`);
  }
}

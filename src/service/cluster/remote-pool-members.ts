// A pool's books kept on the leader, its browser on another host: each step is asked of that host over
// HTTP with the cluster key (cluster/pool-member-routes.ts answers). Its refusals come back as the same
// DomainErrors the host threw, so the pool treats a browser here and one there alike.
import type { BrowserRow } from '../store/browsers-repo.js';
import type { PoolRow } from '../store/pools-repo.js';
import type { LeaseTerms, MemberInfo, MemberOps, ReleaseTicket } from '../host/pools/index.js';
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

  async release(id: string, keep: boolean, label: string, why: string): Promise<ReleaseTicket> {
    const res = await this.send('POST', `/${encodeURIComponent(id)}/release`, { keep, label, why });
    if (!res.ok) throw await this.refusal(res);
    const lines = ndjsonLines(res.body!);
    await lines.next();
    // A host that goes away before its second line is being declared gone: its browsers end with it.
    const after = lines.next().then(
      (line) => ((line.value as { state?: 'idle' | 'ended' } | undefined)?.state === 'idle' ? 'idle' : 'ended') as 'idle' | 'ended',
      () => 'ended' as const,
    );
    return { after };
  }

  async end(id: string, why: string): Promise<void> {
    await this.call('POST', `/${encodeURIComponent(id)}/end`, { why });
  }

  async list(): Promise<MemberInfo[]> {
    return (await this.call<MemberInfo[]>('GET', ''))!;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
    const res = await this.send(method, path, body);
    if (res.status === 204) return undefined;
    if (!res.ok) throw await this.refusal(res);
    return (await res.json()) as T;
  }

  private send(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.url}${POOL_MEMBERS_PATH}${path}`, {
      method,
      headers: { [CLUSTER_KEY_HEADER]: this.key.header, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // A host that stops answering is declared gone on its own; the pool does not wait on it meanwhile.
      signal: AbortSignal.timeout(method === 'POST' && path === '' ? LAUNCH_TIMEOUT_MS : CALL_TIMEOUT_MS),
    });
  }

  /** The host's refusal as the DomainError it threw. */
  private async refusal(res: Response): Promise<DomainError> {
    const answer = (await res.json().catch(() => undefined)) as { code?: string; message?: string } | undefined;
    const kind = KIND_OF_STATUS[res.status] ?? 'unavailable';
    return new DomainError(kind, answer?.code ?? 'host_error', answer?.message ?? `host ${this.hostId} answered ${res.status}`);
  }
}

/** The JSON lines of a streamed answer, one at a time. */
async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffered += decoder.decode(read.value, { stream: true });
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) yield JSON.parse(line);
    }
  }
}

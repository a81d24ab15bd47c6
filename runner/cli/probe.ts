// `bcs probe`: whether a running service serves, for an orchestrator's exec probe (every route needs a key,
// so an HTTP probe could not ask) and for scripts. Live: it answers HTTP at all. Ready: GET /metrics answers
// 200 and the service is not draining.
import { clusterKeyHeaderOf } from '../../src/service/index.js';

export interface ProbeOptions {
  url: string;
  apiKey: string | undefined;
  clusterKeyFile: string | undefined;
  live: boolean;
  timeoutMs: number;
}

export async function probe(opts: ProbeOptions): Promise<{ ok: boolean; message: string }> {
  const headers: Record<string, string> = {};
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  // What a replica adds to what it forwards: a host answers nothing without it (but its own loopback).
  if (opts.clusterKeyFile) {
    const { name, value } = clusterKeyHeaderOf(opts.clusterKeyFile);
    headers[name] = value;
  }
  let res: Response;
  try {
    res = await fetch(new URL('/metrics', opts.url), { headers, signal: AbortSignal.timeout(opts.timeoutMs) });
  } catch (err) {
    return { ok: false, message: `no answer from ${opts.url}: ${(err as Error).cause ? String((err as Error & { cause: Error }).cause.message) : (err as Error).message}` };
  }
  const text = await res.text();
  if (opts.live) return { ok: true, message: `live: ${opts.url} answered ${res.status}` };
  if (res.status !== 200) return { ok: false, message: `not ready: GET /metrics answered ${res.status}${res.status === 401 || res.status === 403 ? ' (give an org-wide API key: --api-key-file or BCS_API_KEY)' : ''}` };
  if (/^bcs_draining 1$/m.test(text)) return { ok: false, message: 'not ready: draining (it takes no new sessions)' };
  return { ok: true, message: `ready: ${opts.url}` };
}

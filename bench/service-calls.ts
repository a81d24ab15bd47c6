// What benchmarks that drive the service over HTTP share: a call that fails loudly, and a wait.
import type { RunningService } from '../src/service/index.js';

/** One API call with the service's key; a non-2xx answer throws with its body. */
export async function call(svc: RunningService, method: string, path: string, body?: object): Promise<any> {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${svc.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

/** Polls `check` every 5 ms until it holds (untimed set-up between measured steps). */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 5));
}

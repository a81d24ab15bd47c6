// The package's library entry: the API transport, the scenario compiler and the embedded service.
import { startService as startEmbedded } from './service/index.js';
import type { RunningService, ServiceOptions } from './service/public.js';

export * from './api/index.js';
export * from './scenario/index.js';
export type { ChromiumExecutable, EgressMode, OtlpDestination, RunningService, ServiceOptions } from './service/public.js';

/**
 * Starts the embedded service in this process. Typed with the public face of what it returns: the
 * declarations of the host's parts behind it are not published (service/public.ts says why).
 */
export function startService(opts: ServiceOptions): Promise<RunningService> {
  return startEmbedded(opts);
}

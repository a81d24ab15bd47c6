// The embedded service on a thread of its own (embedded-service.ts). A run's first moments are CPU-bound on
// both sides, the runner loading Playwright and compiling scenarios, the service loading and launching the
// first browser; on one thread each waited for the other. Here they use two cores, and the service's CDP
// proxy stays off the thread that runs the scenarios' Playwright clients. The thread loads the service as
// it starts and starts it when told how (runner/bcs.js starts it before the CLI itself has loaded).
import module from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { ServiceOptions } from '../../src/service/index.js';
import { embeddedInfo, type ThreadMessage } from './embedded-service.js';

const data = (workerData ?? {}) as { compileCache?: string };
if (data.compileCache) module.enableCompileCache?.(data.compileCache);
const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
const loading = import('../../src/service/index.js');
loading.catch(() => {}); // reported when started

port.once('message', async (options: ServiceOptions) => {
  try {
    const { startService } = await loading;
    const service = await startService(options);
    port.once('message', () => {
      void service.close().then(
        () => post({ kind: 'closed' }),
        (err: Error) => post({ kind: 'closed', error: err.message }),
      );
    });
    post({ kind: 'ready', info: embeddedInfo(service) });
  } catch (err) {
    post({ kind: 'failed', message: (err as Error).message });
  }
});

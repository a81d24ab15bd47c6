// Starts the embedded service for a run: on a worker thread (service-thread.ts) when the runner runs from
// its build, where the thread's entry is a file of its own; in this thread when it runs from source (the
// test suite imports the runner's TypeScript, which a worker thread cannot load).
import module from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RunningService, ServiceOptions } from '../../src/service/index.js';
import { packageRoot } from './package-root.js';

/** What the runner needs of a started embedded service: plain data, as it crosses from the thread. */
export interface EmbeddedInfo {
  baseUrl: string;
  apiKey: string;
  sandboxed: boolean;
  sandboxReason: string;
  chromium: { path: string; source: string };
  headlessShell: { path: string } | null;
}

export type ThreadMessage = { kind: 'ready'; info: EmbeddedInfo } | { kind: 'failed'; message: string } | { kind: 'closed'; error?: string };

export interface EmbeddedService extends EmbeddedInfo {
  close(): Promise<void>;
}

export async function startEmbeddedService(options: ServiceOptions): Promise<EmbeddedService> {
  const entry = threadEntry();
  return entry ? startOnThread(entry, options) : startHere(options);
}

/** The thread's built entry, when this module runs from dist/ (not from source). */
function threadEntry(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.js')) return undefined;
  const file = join(packageRoot(here), 'dist', 'runner', 'suite', 'service-thread.js');
  return existsSync(file) ? file : undefined;
}

async function startHere(options: ServiceOptions): Promise<EmbeddedService> {
  const { startService } = await import('../../src/service/index.js');
  const service = await startService(options);
  return { ...embeddedInfo(service), close: () => service.close() };
}

/** What crosses from the service's thread (or is taken here from a service started on this one). */
export function embeddedInfo(service: RunningService): EmbeddedInfo {
  return {
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    sandboxed: service.sandbox !== null,
    sandboxReason: service.sandboxReason,
    chromium: { path: service.chromium.path, source: service.chromium.source },
    headlessShell: service.headlessShell ? { path: service.headlessShell.path } : null,
  };
}

/** Set by runner/bcs.js: the service's thread, started (and loading) before the CLI had loaded. */
const EARLY_THREAD = Symbol.for('browser-scenarios.service-thread');

/** The thread runner/bcs.js started, if it did and it still runs; it is this run's from here on. */
function earlyThread(): Worker | undefined {
  const global = globalThis as { [EARLY_THREAD]?: Worker };
  const worker = global[EARLY_THREAD];
  delete global[EARLY_THREAD];
  if (!worker) return undefined;
  if (worker.threadId === -1) return undefined; // it ended (its error was reported where it was started)
  worker.ref();
  return worker;
}

function startOnThread(entry: string, options: ServiceOptions): Promise<EmbeddedService> {
  // The thread compiles the service's modules from the same cache the CLI's own loads use (runner/bcs.js).
  const worker = earlyThread() ?? new Worker(entry, { workerData: { compileCache: module.getCompileCacheDir?.() } });
  worker.postMessage(options);
  // What the thread said when the service closed (an error's message), or that it went away.
  let closed!: (error?: string) => void;
  const closing = new Promise<string | undefined>((done) => (closed = done));
  let close: Promise<void> | undefined;
  return new Promise((resolve, reject) => {
    let started = false;
    worker.on('message', (message: ThreadMessage) => {
      if (message.kind === 'ready') {
        started = true;
        resolve({
          ...message.info,
          close: () =>
            (close ??= (async () => {
              worker.postMessage('close');
              const error = await closing;
              await worker.terminate();
              if (error) throw new Error(error);
            })()),
        });
      } else if (message.kind === 'failed') {
        void worker.terminate();
        reject(new Error(message.message));
      } else closed(message.error);
    });
    worker.on('error', (err) => {
      if (!started) reject(err);
      // A service that stopped under a run: its calls fail from here on and say so; this says why.
      else process.stderr.write(`bcs: the embedded service stopped: ${err.message}\n`);
      closed();
    });
    worker.on('exit', (code) => {
      if (!started) reject(new Error(`the embedded service's thread exited (${code}) before it started`));
      closed();
    });
  });
}

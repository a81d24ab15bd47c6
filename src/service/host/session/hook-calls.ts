// Calling the hooks the rest of the service plugs into a session's life (types.ts SessionHooks): one that
// throws is logged and never stops the others, nor the session's own course.
import type { Logger } from './types.js';

/** Calls every hook at once; resolves when all have settled. */
export async function callAll<H>(hooks: readonly H[], call: (hook: H) => unknown, log: Logger, fields: object, what: string): Promise<void> {
  await Promise.all(hooks.map((hook) => callOne(hook, call, log, fields, what)));
}

/** Calls the hooks one after the other, each after the last has settled. */
export async function callInOrder<H>(hooks: readonly H[], call: (hook: H) => unknown, log: Logger, fields: object, what: string): Promise<void> {
  for (const hook of hooks) await callOne(hook, call, log, fields, what);
}

async function callOne<H>(hook: H, call: (hook: H) => unknown, log: Logger, fields: object, what: string): Promise<void> {
  try {
    await call(hook);
  } catch (err) {
    log.warn({ ...fields, err: (err as Error).message }, `${what} failed`);
  }
}

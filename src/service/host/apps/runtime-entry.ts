// The program an action worker runs: esbuild bundles this generated entry together with the app, so the
// app's own `@onkernel/sdk` registry (the one its `kernel.app(name)` calls fill) is the one read here.
// Over the IPC channel the worker reports its apps once the app has loaded ('ready'), then runs at most
// one invocation ('invoke' → 'result') and waits to be killed: each invocation has a process of its own.

/** Messages the worker sends. */
export type WorkerMessage =
  | { type: 'ready'; apps: { name: string; actions: { name: string }[] }[] }
  | { type: 'load_error'; message: string }
  | { type: 'result'; ok: true; output: string }
  | { type: 'result'; ok: false; error: string };

/** The message that starts an invocation. */
export interface InvokeMessage {
  type: 'invoke';
  invocation_id: string;
  app_name: string;
  action_name: string;
  /** JSON text, or absent. */
  payload?: string;
}

/**
 * Written to stdout and stderr after an invocation's output and before its result: pipes and the IPC
 * channel are read independently, so the service waits for this to know it has every line (see worker.ts).
 */
export const OUTPUT_END = '\u0000bcs-output-end';

/** The entry's source; `entrypoint` is the app's entry file as an absolute path at build time. */
export function runtimeEntrySource(entrypoint: string): string {
  return `
import { appRegistry } from '@onkernel/sdk';
const sendNow = (msg) => new Promise((resolve) => process.send(msg, undefined, undefined, () => resolve()));
const endOutput = (stream) => new Promise((resolve) => stream.write(${JSON.stringify(OUTPUT_END)} + '\\n', () => resolve()));
// A result follows the output it came after: the marker tells the service every line has arrived.
const send = async (msg) => {
  if (msg.type === 'result') await Promise.all([endOutput(process.stdout), endOutput(process.stderr)]);
  return sendNow(msg);
};
// The error's message and where in the app it was thrown (source-mapped: file:line:column in the zip).
const describe = (err) => {
  if (!(err instanceof Error)) return String(err);
  const root = process.cwd() + '/';
  for (const line of String(err.stack || '').split('\\n').slice(1)) {
    const m = /\\(?((?:file:\\/\\/)?\\/[^()]+):(\\d+):(\\d+)\\)?$/.exec(line.trim());
    const file = m && m[1].replace(/^file:\\/\\//, '');
    if (file && file.startsWith(root) && !file.includes('/node_modules/')) return err.message + ' (at ' + file.slice(root.length) + ':' + m[2] + ':' + m[3] + ')';
  }
  return err.message;
};
try {
  await import(${JSON.stringify(entrypoint)});
} catch (err) {
  await send({ type: 'load_error', message: describe(err) });
  process.exit(1);
}
process.on('message', async (msg) => {
  if (!msg || msg.type !== 'invoke') return;
  process.env.KERNEL_INVOCATION_ID = msg.invocation_id;
  const app = appRegistry.getAppByName(msg.app_name);
  const action = app && app.getAction(msg.action_name);
  if (!action) return send({ type: 'result', ok: false, error: 'action ' + JSON.stringify(msg.action_name) + ' is not defined by app ' + JSON.stringify(msg.app_name) });
  try {
    const payload = msg.payload === undefined ? undefined : JSON.parse(msg.payload);
    const value = await action.handler({ invocation_id: msg.invocation_id }, payload);
    const output = JSON.stringify(value === undefined ? null : value);
    await send({ type: 'result', ok: true, output });
  } catch (err) {
    console.error(err instanceof Error && err.stack ? err.stack : String(err));
    await send({ type: 'result', ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
await send({ type: 'ready', apps: appRegistry.export().apps });
`;
}

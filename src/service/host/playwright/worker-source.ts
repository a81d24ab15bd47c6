// The program a Playwright worker process runs, kept as text so it starts the same way from src (vitest)
// and from the esbuild bundle in dist/, where no file of its own would sit at a predictable path.
// It is run as `node --input-type=module -e WORKER_SOURCE <playwright-core path> <result byte limit>`.
//
// Protocol, over the IPC channel only (fd 1 and 2 belong to the user's code):
//   worker -> service  {type:'ready'}                            playwright-core is loaded
//   service -> worker  {type:'run', wsEndpoint, code, marker}    code: JS evaluating to an async function
//   worker -> service  {type:'done', ok:true, json, last}        the returned value, already JSON text
//                      {type:'done', ok:false, error, last}
// Before `done` the worker writes `marker` to stdout and to stderr: everything before it is the job's
// output, whatever order the pipes and the IPC channel are read in. `last` says the process is going
// away (an uncaught exception left it in an unknown state) and takes no further job.
// Jobs come one at a time; each connects to the browser and disconnects again.
export const WORKER_SOURCE = String.raw`
import { createRequire } from 'node:module';

const playwrightPath = process.argv[1];
const maxResultBytes = Number(process.argv[2]);
const { chromium } = createRequire(playwrightPath)(playwrightPath);

// Taken before any user code runs, which may replace them.
const send = process.send.bind(process);
const exit = process.exit.bind(process);
const writeOut = process.stdout.write.bind(process.stdout);
const writeErr = process.stderr.write.bind(process.stderr);

let current = null;
const fail = (error) => ({ type: 'done', ok: false, error });

function answer(job, reply, last) {
  if (job.answered) return;
  job.answered = true;
  if (current === job) current = null;
  let pending = 2;
  const sendReply = () => {
    if (--pending > 0) return;
    send({ ...reply, last }, () => last && exit(1));
  };
  for (const write of [writeOut, writeErr]) {
    try {
      write(job.marker, sendReply);
    } catch {
      sendReply();
    }
  }
}

function describe(err) {
  try {
    if (err instanceof Error) {
      const message = err.message || String(err);
      return err.name && err.name !== 'Error' && !message.startsWith(err.name) ? err.name + ': ' + message : message;
    }
    return typeof err === 'string' ? err : String(err);
  } catch {
    return 'an exception that cannot be described';
  }
}

// Without the service nobody awaits an answer, whether this worker is idle or running a job.
process.on('disconnect', () => exit(0));
// A rejection nobody awaited is the user's bug, not a reason to lose the job's result: it is reported
// on stderr, and the job goes on. A throw from a timer has no caller to reach: it ends the job, and
// this process, whose state nobody knows any more.
process.on('unhandledRejection', (reason) => writeErr('Unhandled promise rejection: ' + describe(reason) + '\n'));
process.on('uncaughtException', (err) => {
  if (current) answer(current, fail('uncaught exception: ' + describe(err)), true);
  else exit(1);
});

process.on('message', (msg) => {
  if (!msg || msg.type !== 'run' || current) return;
  const job = { marker: msg.marker, answered: false };
  current = job;
  run(msg).then(
    (reply) => answer(job, reply, false),
    (err) => answer(job, fail('the worker failed: ' + describe(err)), false),
  );
});
send({ type: 'ready' });

async function run(job) {
  let fn;
  try {
    fn = (0, eval)(job.code);
  } catch (err) {
    return fail(describe(err));
  }
  let browser;
  try {
    browser = await chromium.connectOverCDP(job.wsEndpoint, { timeout: 30000 });
  } catch (err) {
    return fail('could not connect to the browser: ' + describe(err));
  }
  try {
    // The session's own context and page: what the user sees and what the next call finds again.
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = context.pages()[0] ?? (await context.newPage());
    return serialise(await fn(page, context, browser));
  } catch (err) {
    return fail(describe(err));
  } finally {
    // Over CDP, close() only disconnects (and closes contexts this connection created); the browser,
    // its default context and its pages stay for the next call.
    await Promise.race([browser.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 5000))]);
  }
}

function serialise(value) {
  if (value === undefined) return { type: 'done', ok: true, json: 'null' };
  let json;
  try {
    json = JSON.stringify(value);
  } catch (err) {
    return fail('the returned value is not JSON-serialisable: ' + describe(err));
  }
  if (json === undefined) return fail('the returned value is not JSON-serialisable: a ' + typeof value + ' has no JSON form');
  const bytes = Buffer.byteLength(json);
  if (bytes > maxResultBytes) {
    return fail('the returned value is too large: ' + bytes + ' bytes as JSON, the limit is ' + maxResultBytes);
  }
  return { type: 'done', ok: true, json };
}
`;

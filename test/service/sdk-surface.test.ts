// Issue 16: the hosted SDK's whole surface against the real service. The methods are read from the SDK's
// own .d.ts files, so a new SDK version's method fails the coverage test until it has a call here; every
// method is then called through an unchanged `new Kernel({ apiKey, baseURL })` with valid arguments (a
// route that answers 404 or 501 is missing), and every JSON answer and stream event is type-checked against
// the method's declared result (test/helpers/sdk-surface.ts), since those types are what the SDK's users
// compile against. Binary answers (downloads, screenshots, raw fetches) are checked for their content type.
//
// One service, one browser session and one of each resource serve every call, in the order of CALLS
// below: each call creates what later ones use, deletes come last.
import Kernel, { APIError, APIPromise, toFile } from '@onkernel/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipOf } from '../helpers/app-zip.js';
import { startLoginSite, type LoginSite } from '../helpers/login-site.js';
import { checkShapes, sdkSurface, type Sample } from '../helpers/sdk-surface.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

/**
 * Methods that answer 404 or 501 because the service does not implement them yet. Listed so the suite stays
 * green while the gap is visible; the test fails when one of them starts working (remove it here) and when
 * any other method is missing.
 */
const EXPECTED_MISSING: Record<string, string> = {};

/**
 * Methods whose real work needs the internet, which this service does not reach: they are called, must
 * answer the refusal named here (so the route exists), and are reported as skipped.
 */
const OFFLINE: Record<string, { reason: string; status: number; code: string }> = {
  'extensions.downloadFromChromeStore': { reason: 'downloads from the Chrome Web Store', status: 400, code: 'chrome_store_unavailable' },
  'credentialProviders.listItems': { reason: "reads a 1Password account's items (needs 1Password and a real service-account token)", status: 503, code: 'provider_unavailable' },
};

// --- what one call answered -------------------------------------------------------------------------------

interface Outcome<T = unknown> {
  /** The HTTP status, when the method made one request the SDK lets us see. */
  status?: number;
  contentType?: string;
  /** What the SDK resolved to (a page object for lists). */
  data: T;
  /** The JSON to type-check against the declared result (a list's items), if the answer is JSON. */
  json?: unknown;
  /** A stream's events, type-checked against what the stream is declared to yield. */
  events?: unknown[];
  /** A binary answer's size; its content type must match `expectType`. */
  bytes?: number;
  expectType?: RegExp;
}

interface AnswerOptions {
  /** For a binary answer: the content type it must have. */
  type?: RegExp;
  /** For a stream: stop reading once this holds (default: read to the end). */
  until?: (event: any, all: unknown[]) => boolean;
  /** For a stream: done after it is open, while it is read (what makes the events come). */
  whileOpen?: () => Promise<unknown>;
}

const STREAM_READ_MS = 60_000;

/** Awaits an SDK call and keeps what the checks need: status, content type, JSON, events or bytes. */
async function answer<T>(call: PromiseLike<T>, opts: AnswerOptions = {}): Promise<Outcome<T>> {
  let data: T;
  let response: Response | undefined;
  if (call instanceof APIPromise) ({ data, response } = await (call as APIPromise<T>).withResponse());
  else data = await call;
  if (data instanceof Response) response = data;
  const out: Outcome<T> = { data, status: response?.status, contentType: response?.headers.get('content-type') ?? undefined };
  const value = data as any;
  if (data instanceof Response) {
    out.bytes = (await data.arrayBuffer()).byteLength;
    out.expectType = opts.type;
  } else if (value && typeof value.controller?.abort === 'function' && Symbol.asyncIterator in value) {
    out.events = await readStream(value, opts);
  } else if (value && typeof value.getPaginatedItems === 'function') {
    out.json = value.getPaginatedItems();
  } else if (value !== undefined && value !== null) {
    out.json = value;
  }
  return out;
}

/** Reads a stream's events until it ends, `until` holds, or STREAM_READ_MS pass (streams that follow forever). */
async function readStream(stream: AsyncIterable<unknown> & { controller: AbortController }, opts: AnswerOptions): Promise<unknown[]> {
  const events: unknown[] = [];
  const timer = setTimeout(() => stream.controller.abort(), STREAM_READ_MS);
  const during = opts.whileOpen?.();
  try {
    for await (const event of stream) {
      events.push(event);
      if (opts.until?.(event, events)) break;
    }
  } finally {
    clearTimeout(timer);
  }
  await during;
  return events;
}

// --- the calls ----------------------------------------------------------------------------------------------

let svc: TestService;
let kernel: Kernel;
let site: Server;
let siteUrl: string;
let login: LoginSite;

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const USER = { username: 'ada@example.test', password: 'lovelace-1815' };
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const hourAhead = () => new Date(Date.now() + 3_600_000).toISOString();
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The smallest extension the service takes: a manifest. */
const extensionZip = () => zipOf({ 'manifest.json': JSON.stringify({ manifest_version: 3, name: 'surface', version: '1.0' }) });

// An app with one quick action and one that holds a browser of its invocation until it is cancelled.
const APP = `
import { Kernel, type KernelContext } from '@onkernel/sdk';
const kernel = new Kernel();
const app = kernel.app('surface');
app.action('echo', async (_ctx: KernelContext, payload?: unknown) => payload);
app.action('hold', async (ctx: KernelContext) => {
  await kernel.browsers.create({ invocation_id: ctx.invocation_id });
  console.log('holding');
  await new Promise((resolve) => setTimeout(resolve, 120_000));
});
`;

/** What calls create and later calls use; filled in as CALLS run. */
const the = {} as {
  browser: string;
  pool: string;
  leased: string;
  profile: string;
  proxy: string;
  extension: string;
  credential: string;
  provider: string;
  connection: string;
  deployment: string;
  invocation: string;
  project: string;
  apiKey: string;
  rotatedKey: string;
  replay: string;
  watch: string;
  process: string;
};

const dir = '/home/kernel/surface';

/** One call per SDK method, keyed by its path on the client, run in this order. */
const CALLS: Record<string, () => Promise<Outcome>> = {
  // Work that goes on in the background is started first, so it overlaps the calls in between: the
  // deployment builds, the pool fills, and the login flow opens its page and waits for input.
  'deployments.create': async () => {
    const o = await answer(kernel.deployments.create({ file: await toFile(await zipOf({ 'index.ts': APP }), 'app.zip'), version: '1.0.0' }));
    the.deployment = o.data.id;
    return o;
  },
  'browserPools.create': async () => {
    const o = await answer(kernel.browserPools.create({ name: 'surface-pool', size: 1, headless: true }));
    the.pool = o.data.id;
    return o;
  },
  // Managed auth against a local login page: with no credential the flow asks for the fields.
  'auth.connections.create': async () => {
    const o = await answer(kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'surface-auth', login_url: login.loginUrl, save_credentials: false }));
    the.connection = o.data.id;
    return o;
  },
  'auth.connections.retrieve': () => answer(kernel.auth.connections.retrieve(the.connection)),
  'auth.connections.update': () => answer(kernel.auth.connections.update(the.connection, { health_check_interval: 7200 })),
  'auth.connections.list': () => answer(kernel.auth.connections.list({ limit: 5 })),
  'auth.connections.login': () => answer(kernel.auth.connections.login(the.connection)),

  // Organisation administration.
  'organization.limits.retrieve': () => answer(kernel.organization.limits.retrieve()),
  'organization.limits.update': () => answer(kernel.organization.limits.update({ default_project_max_concurrent_sessions: null })),
  'projects.create': async () => {
    const o = await answer(kernel.projects.create({ name: 'surface-project' }));
    the.project = o.data.id;
    return o;
  },
  'projects.retrieve': () => answer(kernel.projects.retrieve(the.project)),
  'projects.update': () => answer(kernel.projects.update(the.project, { name: 'surface-project-2' })),
  'projects.list': () => answer(kernel.projects.list({ limit: 5 })),
  'projects.limits.retrieve': () => answer(kernel.projects.limits.retrieve(the.project)),
  'projects.limits.update': () => answer(kernel.projects.limits.update(the.project, { max_concurrent_sessions: 3 })),
  'apiKeys.create': async () => {
    const o = await answer(kernel.apiKeys.create({ name: 'surface-key', days_to_expire: 30 }));
    the.apiKey = o.data.id;
    return o;
  },
  'apiKeys.retrieve': () => answer(kernel.apiKeys.retrieve(the.apiKey)),
  'apiKeys.update': () => answer(kernel.apiKeys.update(the.apiKey, { name: 'surface-key-2' })),
  'apiKeys.list': () => answer(kernel.apiKeys.list({ limit: 5 })),
  'apiKeys.rotate': async () => {
    const o = await answer(kernel.apiKeys.rotate(the.apiKey, { expire_in_days: 0 }));
    the.rotatedKey = o.data.id;
    return o;
  },

  // Stored resources that browsers use.
  'profiles.create': async () => {
    const o = await answer(kernel.profiles.create({ name: 'surface-profile' }));
    the.profile = o.data.id;
    return o;
  },
  'profiles.retrieve': () => answer(kernel.profiles.retrieve('surface-profile')),
  'profiles.update': () => answer(kernel.profiles.update(the.profile, { name: 'surface-profile-2' })),
  'profiles.list': () => answer(kernel.profiles.list({ limit: 5 })),
  'profiles.download': () => answer(kernel.profiles.download(the.profile, { format: 'tar' }), { type: /^application\/x-tar/ }),
  'proxies.create': async () => {
    const port = (site.address() as AddressInfo).port;
    const o = await answer(kernel.proxies.create({ type: 'custom', name: 'surface-proxy', protocol: 'http', config: { host: '127.0.0.1', port } }));
    the.proxy = o.data.id!;
    return o;
  },
  'proxies.retrieve': () => answer(kernel.proxies.retrieve(the.proxy)),
  'proxies.update': () => answer(kernel.proxies.update(the.proxy, { name: 'surface-proxy-2' })),
  'proxies.list': () => answer(kernel.proxies.list({ limit: 5 })),
  // The local site stands in for the proxy: a plain GET for an absolute URL answers, so the check passes offline.
  'proxies.check': () => answer(kernel.proxies.check(the.proxy, { url: siteUrl })),
  'extensions.upload': async () => {
    const o = await answer(kernel.extensions.upload({ file: await toFile(await extensionZip(), 'surface.zip'), name: 'surface-ext' }));
    the.extension = o.data.id;
    return o;
  },
  'extensions.list': () => answer(kernel.extensions.list({ limit: 5 })),
  'extensions.get': () => answer(kernel.extensions.get('surface-ext')),
  'extensions.download': () => answer(kernel.extensions.download(the.extension), { type: /^application\/zip/ }),
  'extensions.downloadFromChromeStore': () =>
    answer(kernel.extensions.downloadFromChromeStore({ url: 'https://chromewebstore.google.com/detail/cjpalhdlnbpafiamejdnhcphjbkeiagm', os: 'linux' }), { type: /^application\/zip/ }),
  'credentials.create': async () => {
    const o = await answer(kernel.credentials.create({ domain: 'surface.example.test', name: 'surface-cred', values: { username: 'u', password: 'p' }, totp_secret: TOTP_SECRET }));
    the.credential = o.data.id;
    return o;
  },
  'credentials.retrieve': () => answer(kernel.credentials.retrieve('surface-cred')),
  'credentials.update': () => answer(kernel.credentials.update(the.credential, { values: { password: 'p2' } })),
  'credentials.list': () => answer(kernel.credentials.list({ limit: 5 })),
  'credentials.totpCode': () => answer(kernel.credentials.totpCode(the.credential)),
  'credentialProviders.create': async () => {
    const o = await answer(kernel.credentialProviders.create({ name: 'surface-op', token: 'ops_not-a-real-service-account-token', provider_type: 'onepassword' }));
    the.provider = o.data.id;
    return o;
  },
  'credentialProviders.retrieve': () => answer(kernel.credentialProviders.retrieve(the.provider)),
  'credentialProviders.update': () => answer(kernel.credentialProviders.update(the.provider, { priority: 1 })),
  'credentialProviders.list': () => answer(kernel.credentialProviders.list({ limit: 5 })),
  // Offline 1Password refuses the token: `success: false` with its reason, a complete answer to check.
  'credentialProviders.test': () => answer(kernel.credentialProviders.test(the.provider)),
  'credentialProviders.listItems': () => answer(kernel.credentialProviders.listItems(the.provider)),

  // The one browser session, and everything under /browsers/{id}.
  'browsers.create': async () => {
    const o = await answer(
      kernel.browsers.create({
        headless: true,
        name: 'surface',
        tags: { suite: 'surface' },
        timeout_seconds: 600,
        viewport: { width: 1024, height: 768 },
        telemetry: { enabled: true, browser: { console: { enabled: true }, page: { enabled: true } } },
      }),
    );
    the.browser = o.data.session_id;
    return o;
  },
  'browsers.retrieve': () => answer(kernel.browsers.retrieve(the.browser)),
  'browsers.update': () => answer(kernel.browsers.update(the.browser, { tags: { suite: 'surface', step: 'update' } })),
  'browsers.list': () => answer(kernel.browsers.list({ limit: 5 })),
  'browsers.curl': () => answer(kernel.browsers.curl(the.browser, { url: `${siteUrl}data.json` })),
  'browsers.fetch': () => answer(kernel.browsers.fetch(the.browser, `${siteUrl}data.json`), { type: /^application\/json/ }),
  'browsers.loadExtensions': async () =>
    answer(kernel.browsers.loadExtensions(the.browser, { extensions: [{ name: 'surface-ext', zip_file: await toFile(await extensionZip(), 'surface.zip') }] })),
  'browsers.playwright.execute': () =>
    answer(kernel.browsers.playwright.execute(the.browser, { code: `await page.goto(${JSON.stringify(siteUrl)}); return await page.title();` })),
  // Recorded while the input calls below run, so the video has frames.
  'browsers.replays.start': async () => {
    const o = await answer(kernel.browsers.replays.start(the.browser, { framerate: 5 }));
    the.replay = o.data.replay_id;
    return o;
  },
  'browsers.replays.list': () => answer(kernel.browsers.replays.list(the.browser)),
  'browsers.computer.clickMouse': () => answer(kernel.browsers.computer.clickMouse(the.browser, { x: 100, y: 100 })),
  'browsers.computer.moveMouse': () => answer(kernel.browsers.computer.moveMouse(the.browser, { x: 120, y: 110 })),
  'browsers.computer.getMousePosition': () => answer(kernel.browsers.computer.getMousePosition(the.browser)),
  'browsers.computer.dragMouse': () => answer(kernel.browsers.computer.dragMouse(the.browser, { path: [[10, 10], [60, 40]] })),
  'browsers.computer.pressKey': () => answer(kernel.browsers.computer.pressKey(the.browser, { keys: ['Tab'] })),
  'browsers.computer.typeText': () => answer(kernel.browsers.computer.typeText(the.browser, { text: 'surface' })),
  'browsers.computer.scroll': () => answer(kernel.browsers.computer.scroll(the.browser, { x: 100, y: 100, delta_y: 1 })),
  'browsers.computer.setCursorVisibility': () => answer(kernel.browsers.computer.setCursorVisibility(the.browser, { hidden: false })),
  'browsers.computer.writeClipboard': () => answer(kernel.browsers.computer.writeClipboard(the.browser, { text: 'clipped' })),
  'browsers.computer.readClipboard': () => answer(kernel.browsers.computer.readClipboard(the.browser)),
  'browsers.computer.batch': () =>
    answer(
      kernel.browsers.computer.batch(the.browser, {
        actions: [
          { type: 'move_mouse', move_mouse: { x: 5, y: 5 } },
          { type: 'sleep', sleep: { duration_ms: 10 } },
        ],
      }),
    ),
  'browsers.computer.captureScreenshot': () => answer(kernel.browsers.computer.captureScreenshot(the.browser), { type: /^image\/png/ }),
  'browsers.replays.stop': () => answer(kernel.browsers.replays.stop(the.replay, { id: the.browser })),
  'browsers.replays.download': () => answer(kernel.browsers.replays.download(the.replay, { id: the.browser }), { type: /^video\/mp4/ }),
  'browsers.fs.createDirectory': () => answer(kernel.browsers.fs.createDirectory(the.browser, { path: dir })),
  'browsers.fs.writeFile': () => answer(kernel.browsers.fs.writeFile(the.browser, 'one\ntwo\n', { path: `${dir}/a.txt` })),
  'browsers.fs.readFile': () => answer(kernel.browsers.fs.readFile(the.browser, { path: `${dir}/a.txt` }), { type: /^application\/octet-stream/ }),
  'browsers.fs.fileInfo': () => answer(kernel.browsers.fs.fileInfo(the.browser, { path: `${dir}/a.txt` })),
  'browsers.fs.listFiles': () => answer(kernel.browsers.fs.listFiles(the.browser, { path: dir })),
  'browsers.fs.move': () => answer(kernel.browsers.fs.move(the.browser, { src_path: `${dir}/a.txt`, dest_path: `${dir}/b.txt` })),
  'browsers.fs.setFilePermissions': () => answer(kernel.browsers.fs.setFilePermissions(the.browser, { path: `${dir}/b.txt`, mode: '600' })),
  'browsers.fs.upload': async () =>
    answer(kernel.browsers.fs.upload(the.browser, { files: [{ file: await toFile(Buffer.from('uploaded'), 'u.txt'), dest_path: `${dir}/u.txt` }] })),
  'browsers.fs.uploadZip': async () =>
    answer(kernel.browsers.fs.uploadZip(the.browser, { zip_file: await toFile(await zipOf({ 'inner/z.txt': 'zipped' }), 'z.zip'), dest_path: `${dir}/unzipped` })),
  'browsers.fs.downloadDirZip': () => answer(kernel.browsers.fs.downloadDirZip(the.browser, { path: dir }), { type: /^application\/zip/ }),
  'browsers.fs.watch.start': async () => {
    const o = await answer(kernel.browsers.fs.watch.start(the.browser, { path: dir, recursive: true }));
    the.watch = o.data.watch_id!;
    return o;
  },
  'browsers.fs.watch.events': () =>
    answer(kernel.browsers.fs.watch.events(the.watch, { id: the.browser }), {
      whileOpen: () => kernel.browsers.fs.writeFile(the.browser, 'watched', { path: `${dir}/watched.txt` }),
      until: (e) => e.path === `${dir}/watched.txt`,
    }),
  'browsers.fs.watch.stop': () => answer(kernel.browsers.fs.watch.stop(the.watch, { id: the.browser })),
  'browsers.fs.deleteFile': () => answer(kernel.browsers.fs.deleteFile(the.browser, { path: `${dir}/b.txt` })),
  'browsers.fs.deleteDirectory': () => answer(kernel.browsers.fs.deleteDirectory(the.browser, { path: `${dir}/unzipped` })),
  'browsers.logs.stream': async () => {
    await kernel.browsers.fs.writeFile(the.browser, 'first line\nsecond line\n', { path: '/tmp/surface.log' });
    return answer(kernel.browsers.logs.stream(the.browser, { source: 'path', path: '/tmp/surface.log', follow: false }));
  },
  'browsers.process.exec': () => answer(kernel.browsers.process.exec(the.browser, { command: 'echo', args: ['surface'] })),
  'browsers.process.spawn': async () => {
    const o = await answer(kernel.browsers.process.spawn(the.browser, { command: 'cat', allocate_tty: true, rows: 24, cols: 80 }));
    the.process = o.data.process_id!;
    return o;
  },
  'browsers.process.stdin': () => answer(kernel.browsers.process.stdin(the.process, { id: the.browser, data_b64: b64('typed\n') })),
  'browsers.process.status': () => answer(kernel.browsers.process.status(the.process, { id: the.browser })),
  'browsers.process.resize': () => answer(kernel.browsers.process.resize(the.process, { id: the.browser, rows: 30, cols: 100 })),
  'browsers.process.kill': () => answer(kernel.browsers.process.kill(the.process, { id: the.browser, signal: 'KILL' })),
  // The output so far is replayed, then the exit event ends the stream.
  'browsers.process.stdoutStream': () => answer(kernel.browsers.process.stdoutStream(the.process, { id: the.browser })),
  'browsers.telemetry.events': () => answer(kernel.browsers.telemetry.events(the.browser, { limit: 10 })),
  'browsers.telemetry.stream': () => answer(kernel.browsers.telemetry.stream(the.browser, { replay: 'all' }), { until: (_e, all) => all.length >= 3 }),

  // The pool of one browser, full by now.
  'browserPools.retrieve': () => answer(kernel.browserPools.retrieve('surface-pool')),
  'browserPools.update': () => answer(kernel.browserPools.update('surface-pool', { size: 1, timeout_seconds: 300 })),
  'browserPools.list': () => answer(kernel.browserPools.list({ limit: 5 })),
  'browserPools.acquire': async () => {
    const o = await answer(kernel.browserPools.acquire(the.pool, { acquire_timeout_seconds: 60 }));
    the.leased = o.data.session_id;
    return o;
  },
  'browserPools.release': () => answer(kernel.browserPools.release(the.pool, { session_id: the.leased, reuse: true })),
  'browserPools.flush': () => answer(kernel.browserPools.flush(the.pool)),

  // The login flow takes the fields through submit and logs in.
  'auth.connections.submit': async () => {
    const waiting = await eventually(async () => {
      const c = await kernel.auth.connections.retrieve(the.connection);
      if (c.flow_status === 'FAILED') throw new Error(`login flow failed: ${c.error_code}: ${c.error_message}`);
      return c.flow_step === 'AWAITING_INPUT' ? c : undefined;
    }, 60_000, 100);
    const identifier = waiting.fields?.find((f) => f.type === 'identifier');
    return answer(kernel.auth.connections.submit(the.connection, { field_values: { [identifier?.id ?? 'identifier']: USER.username, password: USER.password } }));
  },
  // From the flow's start to its end (SUCCESS).
  'auth.connections.follow': () =>
    answer(kernel.auth.connections.follow(the.connection), { until: (e) => e.event === 'managed_auth_state' && ['SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED'].includes(e.flow_status) }),
  'auth.connections.timeline': () => answer(kernel.auth.connections.timeline(the.connection, { limit: 5 })),

  // The app: its deployment, its app version, and its invocations.
  // Until the deployment runs (or fails), when the stream ends.
  'deployments.follow': () => answer(kernel.deployments.follow(the.deployment)),
  'deployments.retrieve': () => answer(kernel.deployments.retrieve(the.deployment)),
  'deployments.list': () => answer(kernel.deployments.list({ limit: 5 })),
  'apps.list': () => answer(kernel.apps.list({ limit: 5 })),
  'invocations.create': () => answer(kernel.invocations.create({ app_name: 'surface', version: '1.0.0', action_name: 'echo', payload: '{"a":1}' })),
  // A run that holds a browser of its own until it is cancelled: its events up to "holding", its browsers.
  'invocations.follow': async () => {
    the.invocation = (await kernel.invocations.create({ app_name: 'surface', version: '1.0.0', action_name: 'hold', async: true })).id;
    return answer(kernel.invocations.follow(the.invocation), { until: (e) => e.event === 'log' && e.message === 'holding' });
  },
  'invocations.listBrowsers': () => answer(kernel.invocations.listBrowsers(the.invocation)),
  'invocations.deleteBrowsers': () => answer(kernel.invocations.deleteBrowsers(the.invocation)),
  'invocations.update': () => answer(kernel.invocations.update(the.invocation, { status: 'failed' })),
  'invocations.retrieve': () => answer(kernel.invocations.retrieve(the.invocation)),
  'invocations.list': () => answer(kernel.invocations.list({ limit: 5 })),

  // The audit log holds the requests above.
  'auditLogs.list': () => answer(kernel.auditLogs.list({ start: hourAgo(), end: hourAhead(), limit: 5 })),
  'auditLogs.exportChunk': () => answer(kernel.auditLogs.exportChunk({ start: hourAgo(), end: hourAhead(), format: 'jsonl', limit: 5 }), { type: /^application\/x-ndjson/ }),
  'auditLogs.download': () => answer(kernel.auditLogs.download({ start: hourAgo(), end: hourAhead(), limit: 1000 }, { write: () => undefined })),

  // Deletes, dependants first.
  'deployments.delete': () => answer(kernel.deployments.delete(the.deployment)),
  'auth.connections.delete': () => answer(kernel.auth.connections.delete(the.connection)),
  'browserPools.delete': () => answer(kernel.browserPools.delete(the.pool, { force: true })),
  'browsers.deleteByID': () => answer(kernel.browsers.deleteByID(the.browser)),
  'profiles.delete': () => answer(kernel.profiles.delete(the.profile)),
  'proxies.delete': () => answer(kernel.proxies.delete(the.proxy)),
  'extensions.delete': () => answer(kernel.extensions.delete(the.extension)),
  'credentials.delete': () => answer(kernel.credentials.delete(the.credential)),
  'credentialProviders.delete': () => answer(kernel.credentialProviders.delete(the.provider)),
  'apiKeys.delete': () => answer(kernel.apiKeys.delete(the.rotatedKey)),
  'projects.delete': () => answer(kernel.projects.delete(the.project)),
};

// --- running them -------------------------------------------------------------------------------------------

type Result = { method: string; ms: number } & ({ ok: Outcome } | { error: { status?: number; code?: string; message: string } });
const results: Result[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url?.endsWith('/data.json')) res.writeHead(200, { 'content-type': 'application/json' }).end('{"surface":true}');
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<title>surface</title><p>surface</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  login = await startLoginSite({ variant: 'basic', users: { [USER.username]: { password: USER.password } } });
  svc = await startTestService({ heartbeatMs: 200 });
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });

  for (const [method, call] of Object.entries(CALLS)) {
    const started = Date.now();
    try {
      const ok = await call();
      results.push({ method, ms: Date.now() - started, ok });
    } catch (err) {
      const error = err instanceof APIError ? { status: err.status, code: (err.error as any)?.code, message: err.message } : { message: String(err) };
      results.push({ method, ms: Date.now() - started, error });
    }
  }
  console.log(`slowest calls: ${[...results].sort((a, b) => b.ms - a.ms).slice(0, 8).map((r) => `${r.method} ${r.ms} ms`).join(', ')}`);
}, 180_000);

afterAll(async () => {
  await svc?.close();
  site?.close();
  await login?.close();
});

const failed = (r: Result): r is Result & { error: { status?: number; code?: string; message: string } } => 'error' in r;
const missingRoute = (r: Result) => failed(r) && (r.error.status === 404 || r.error.status === 501);

describe(`@onkernel/sdk: every method of its declared surface`, () => {
  it('has a call here for every method the SDK declares, and none for a method it does not', () => {
    const { methods, unreachableClasses } = sdkSurface();
    expect(unreachableClasses, 'resource classes no client property leads to').toEqual([]);
    const uncalled = methods.filter((m) => !(m in CALLS));
    expect(uncalled, 'SDK methods with no call in CALLS (a new SDK version?): add one').toEqual([]);
    expect(Object.keys(CALLS).filter((m) => !methods.includes(m)), 'calls for methods the SDK does not declare').toEqual([]);
    expect(methods.length).toBeGreaterThan(100);
  });

  it('answers every method: no route is missing but the listed ones, nothing else fails', () => {
    expect(results.map((r) => r.method)).toEqual(Object.keys(CALLS));
    const missing = results.filter(missingRoute).map((r) => r.method);
    for (const r of results.filter(missingRoute)) console.log(`missing: ${r.method} -> ${(r as any).error.status} ${(r as any).error.message}`);
    expect(missing.filter((m) => !(m in EXPECTED_MISSING)), 'methods answering 404/501 (route missing)').toEqual([]);
    expect(Object.keys(EXPECTED_MISSING).filter((m) => !missing.includes(m)), 'listed as missing but answered: remove from EXPECTED_MISSING').toEqual([]);

    for (const [method, why] of Object.entries(OFFLINE)) console.log(`skipped: ${method} (needs the internet: ${why.reason})`);
    const offlineWrong = Object.entries(OFFLINE)
      .filter(([m, why]) => {
        const r = results.find((x) => x.method === m)!;
        return !failed(r) || r.error.status !== why.status || r.error.code !== why.code;
      })
      .map(([m]) => `${m}: ${JSON.stringify((results.find((x) => x.method === m) as any).error ?? 'answered')}`);
    expect(offlineWrong, 'offline methods must answer their named refusal').toEqual([]);

    const otherFailures = results.filter((r) => failed(r) && !missingRoute(r) && !(r.method in OFFLINE)).map((r) => `${r.method}: ${JSON.stringify((r as any).error)}`);
    expect(otherFailures, 'methods that failed with valid arguments').toEqual([]);
    console.log(`${results.length} methods called: ${results.filter((r) => !failed(r)).length} answered, ${missing.length} missing, ${Object.keys(OFFLINE).length} skipped (offline)`);
  });

  it('answers what the SDK declares: JSON and stream events type-check, binary answers have their content type', () => {
    const answered = results.filter((r): r is Result & { ok: Outcome } => 'ok' in r);
    const samples: Sample[] = answered.flatMap(({ method, ok }) => [
      ...(ok.json !== undefined ? [{ method, kind: 'answer' as const, value: ok.json }] : []),
      ...(ok.events !== undefined ? [{ method, kind: 'events' as const, value: ok.events }] : []),
    ]);
    const { errors, extras } = checkShapes(samples);
    const byMethod = new Map<string, string[]>();
    for (const e of extras) byMethod.set(e.method, [...(byMethod.get(e.method) ?? []), e.path]);
    for (const [method, paths] of byMethod) console.log(`extra (not in the SDK's types): ${method}: ${paths.join(', ')}`);

    const streams = answered.filter((r) => r.ok.events !== undefined);
    const streamProblems = streams
      .filter((r) => !/^text\/event-stream/.test(r.ok.contentType ?? '') || r.ok.events!.length === 0)
      .map((r) => `${r.method}: ${r.ok.contentType}, ${r.ok.events!.length} events`);
    const binary = answered.filter((r) => r.ok.bytes !== undefined);
    const binaryProblems = binary
      .filter((r) => !r.ok.expectType || !r.ok.expectType.test(r.ok.contentType ?? '') || r.ok.status !== 200)
      .map((r) => `${r.method}: ${r.ok.status} ${r.ok.contentType} (expected ${r.ok.expectType})`);
    const voids = answered.filter((r) => r.ok.json === undefined && r.ok.events === undefined && r.ok.bytes === undefined);
    const voidProblems = voids.filter((r) => r.ok.status !== undefined && (r.ok.status < 200 || r.ok.status > 299)).map((r) => `${r.method}: ${r.ok.status}`);

    console.log(
      `checked ${answered.length} answered methods: ${samples.length} JSON answers and streams type-checked, ${binary.length} binary, ${voids.length} without a body; ` +
        `${errors.length} shape errors, ${extras.length} extra fields`,
    );
    expect(errors.map((e) => `${e.method}: ${e.message}`), 'answers the SDK types reject').toEqual([]);
    expect(streamProblems, 'streams: text/event-stream with events').toEqual([]);
    expect(binaryProblems, 'binary answers: 200 with the content type').toEqual([]);
    expect(voidProblems).toEqual([]);
  });
});

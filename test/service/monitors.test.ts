// Monitors end to end on an injected clock: a suite deployed with `bcs monitor deploy`, its checks run by the
// service as real `bcs run` processes against its own browsers, retried with backoff, alerting after N failures
// in a row and on recovery through a signed webhook and mail to a real SMTP server, muted in a maintenance
// window; paused, resumed and triggered from the CLI; and carried across a restart.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { verifySignature } from '../../src/service/host/monitors/channels/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';
import type { MonitorCheckState } from '../../src/api/schemas/monitors.js';

const T0 = Date.parse('2030-01-07T02:00:00Z');
let nowMs = T0;
const clock = () => new Date(nowMs);
const advance = (ms: number) => (nowMs += ms);
const MIN = 60_000;

let site: Server;
let siteUrl: string;
/** What the checked page says: a check expects `ok`. */
let siteTitle = 'ok';
let hooks: Server;
let hookUrl: string;
const received: { headers: IncomingHttpHeaders; raw: string }[] = [];
let smtp: SMTPServer;
let smtpPort: number;
const mails: { from: string; to: string[]; text: string }[] = [];

beforeAll(async () => {
  site = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><title>${siteTitle}</title><h1>${siteTitle}</h1>`);
  });
  hooks = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      received.push({ headers: req.headers, raw });
      res.end('ok');
    });
  });
  smtp = new SMTPServer({
    // Mail with a login needs TLS, which the channel tests cover (alert-channels.test.ts); this one is plain.
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, cb) {
      let text = '';
      stream.on('data', (c) => (text += c));
      stream.on('end', () => {
        mails.push({ from: String(session.envelope.mailFrom && session.envelope.mailFrom.address), to: session.envelope.rcptTo.map((r) => r.address), text });
        cb();
      });
    },
  });
  await Promise.all([
    new Promise<void>((r) => site.listen(0, '127.0.0.1', r)),
    new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r)),
    new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r)),
  ]);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/alerts`;
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(async () => {
  site?.close();
  hooks?.close();
  await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
});

const scenario = (name: string) => `name: ${name}\nsteps:\n  - goto: "{{ site }}/${name}"\n  - expect: { title: ok, timeout: 500ms }\n`;

function config(extra = '') {
  return `vars:
  site: ${siteUrl}
monitors:
  suite: shop
  defaults:
    every: 1m
    timeout: 2m
    channels: [hook, mail]
  checks:
    status.yaml:
      retries: { count: 1, strategy: fixed, delay: 30s }
      alert: { after_failures: 2, remind_every: 5 }
      keep_on_failure: 5m
    quiet.yaml:
      every: 1h
  channels:
    hook: { type: webhook, url: "${hookUrl}", secret: { secret: HOOK } }
    mail:
      type: email
      smtp: { host: 127.0.0.1, port: ${smtpPort} }
      from: bcs@example.test
      to: oncall@example.test
  secrets:
    HOOK: { env: BCS_SECRET_HOOK }
${extra}`;
}

describe('monitors', { timeout: 600_000 }, () => {
  let svc: TestService;
  let env: Record<string, string>;
  const suite = inlineFiles({});

  // Ours, so the restart finds the first service's state (a test service removes a data dir it made).
  let dataDir: string;
  const start = async () => {
    svc = await startTestService({
      now: clock,
      store: 'sqlite',
      monitorRunner: { packageDir: ROOT },
      monitorTickMs: 50,
      monitorEnv: { BCS_SECRET_HOOK: 'hook-secret-value' },
      dataDir,
    });
    env = { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey };
  };
  const checks = async () => (await svc.call('GET', '/monitors/checks?recent=20')).body as MonitorCheckState[];
  const check = async (name: string) => (await checks()).find((c) => c.name === name)!;
  /** Waits until the check has `n` recorded runs and nothing running. */
  const runsOf = (name: string, n: number) =>
    eventually(async () => {
      const c = await check(name);
      return c.recent.length >= n && !c.running ? c : undefined;
    }, 120_000);

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'bcs-monitors-'));
    await start();
    const project = await suite;
    await project.write({ 'bcs.config.yaml': config(), 'status.yaml': scenario('status'), 'quiet.yaml': scenario('quiet') });
  });
  afterAll(async () => {
    await svc?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('deploys a folder with the CLI: a check per scenario file, each due at once', async () => {
    const project = await suite;
    const dry = await runCli(['monitor', 'deploy', project.dir, '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const manifest = JSON.parse(dry.stdout);
    expect(manifest.checks.map((c: { name: string; schedule: unknown }) => [c.name, c.schedule])).toEqual([
      ['quiet', { every_seconds: 3600 }],
      ['status', { every_seconds: 60 }],
    ]);
    // Secrets are named, never carried.
    expect(dry.stdout).not.toContain('hook-secret-value');
    const res = await runCli(['monitor', 'deploy', project.dir], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("suite 'shop' version 1: 2 checks");
    const status = await runsOf('status', 1);
    const quiet = await runsOf('quiet', 1);
    expect(status).toMatchObject({ status: 'passing', consecutive_failures: 0, next_run_at: new Date(T0 + MIN).toISOString() });
    expect(quiet.status).toBe('passing');
    // The run is kept with the others, as a scheduled run of the suite tagged with its check.
    const run = (await svc.call('GET', `/runs/${status.last_run_id}`)).body;
    expect(run).toMatchObject({ suite: 'shop', trigger: 'schedule', status: 'passed' });
    expect(run.tags).toContain('check:status');
    expect(received).toHaveLength(0);
  });

  it('retries a failure after its backoff, and alerts after two failing runs in a row, signed and by mail', async () => {
    siteTitle = 'broken';
    advance(MIN);
    let c = await runsOf('status', 2);
    // The first attempt failed: a retry is due 30 s later; no verdict yet.
    expect(c.recent[0]).toMatchObject({ status: 'failed', attempt: 1 });
    expect(c).toMatchObject({ status: 'passing', next_run_at: new Date(nowMs + 30_000).toISOString() });
    advance(30_000);
    c = await runsOf('status', 3);
    expect(c).toMatchObject({ status: 'failing', consecutive_failures: 1 });
    expect(received).toHaveLength(0);
    advance(30_000);
    await runsOf('status', 4);
    advance(30_000);
    c = await runsOf('status', 5);
    expect(c).toMatchObject({ status: 'failing', consecutive_failures: 2 });
    const hook = await eventually(() => received[0]);
    // The receiver checks the signature with the shared secret; a changed body does not pass.
    expect(verifySignature('hook-secret-value', hook.headers['x-bcs-signature'] as string, hook.raw, Math.floor(nowMs / 1000))).toBe(true);
    expect(verifySignature('hook-secret-value', hook.headers['x-bcs-signature'] as string, hook.raw.replace('failing', 'passing'), Math.floor(nowMs / 1000))).toBe(false);
    const alert = JSON.parse(hook.raw);
    expect(alert).toMatchObject({ kind: 'failing', status: 'failing', consecutive_failures: 2, check: { name: 'status', suite: 'shop', file: 'status.yaml' } });
    expect(alert.run.url).toBe(`${svc.baseUrl}/runs/${c.last_run_id}`);
    expect(alert.failure.message).toMatch(/title/i);
    // The browser of the first failing verdict is kept at its failing step, one for the spell, and the alert links it.
    const kept = (await svc.call('GET', '/browsers?kept=true')).body as { session_id: string; kept: { reason: { scenario?: string } } }[];
    expect(kept).toHaveLength(1);
    expect(kept[0]!.kept.reason.scenario).toBe('status');
    expect(alert.kept_session).toMatchObject({ session_id: kept[0]!.session_id });
    expect(alert.kept_session.live_view_url).toContain(kept[0]!.session_id);
    expect(alert.summary).toContain('[FAILING] shop / status');
    const mail = await eventually(() => mails[0]);
    expect(mail).toMatchObject({ from: 'bcs@example.test', to: ['oncall@example.test'] });
    expect(mail.text).toContain('shop / status');
    const recorded = (await svc.call('GET', `/monitors/alerts?check_id=${c.id}`)).body;
    expect(recorded[0]).toMatchObject({ kind: 'failing', muted: false, deliveries: [{ channel: 'hook', ok: true }, { channel: 'mail', ok: true }] });
    // /metrics has the check's series.
    const metrics = (await svc.call('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/bcs_monitor_check_consecutive_failures\{[^}]*check="status"[^}]*\} 2/);
    expect(metrics).toMatch(/bcs_monitor_check_up\{[^}]*check="status"[^}]*\} 0/);
  });

  it('tells the channels when it recovers', async () => {
    siteTitle = 'ok';
    const before = received.length;
    advance(MIN);
    const c = await runsOf('status', 6);
    expect(c).toMatchObject({ status: 'passing', consecutive_failures: 0 });
    const hook = await eventually(() => received[before]);
    expect(JSON.parse(hook.raw)).toMatchObject({ kind: 'recovered', status: 'passing' });
  });

  it('pauses, triggers and resumes from the CLI', async () => {
    const paused = await runCli(['monitor', 'pause', 'shop/status'], env);
    expect(paused.code, paused.stderr).toBe(0);
    expect(await check('status')).toMatchObject({ paused: true, next_run_at: null });
    const refused = await runCli(['monitor', 'trigger', 'status'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('paused');
    advance(5 * MIN);
    await new Promise((r) => setTimeout(r, 300));
    expect((await check('status')).recent).toHaveLength(6);
    expect((await runCli(['monitor', 'resume', 'status'], env)).code).toBe(0);
    const resumed = await check('status');
    expect(resumed.paused).toBe(false);
    expect(Date.parse(resumed.next_run_at!)).toBeGreaterThan(nowMs);
    const triggered = await runCli(['monitor', 'trigger', 'status'], env);
    expect(triggered.code, triggered.stderr).toBe(0);
    const c = await runsOf('status', 7);
    expect(c.next_run_at).toBe(resumed.next_run_at);
    const run = (await svc.call('GET', `/runs/${c.last_run_id}`)).body;
    expect(run.trigger).toBe('manual');
    const status = await runCli(['monitor', 'status'], env);
    expect(status.stdout).toMatch(/shop\/status\s+passing/);
  });

  it('mutes alerts in a maintenance window, and alerts after it if still failing', async () => {
    const project = await suite;
    const windowStart = new Date(nowMs).toISOString();
    const windowEnd = new Date(nowMs + 10 * MIN).toISOString();
    await project.write({ 'bcs.config.yaml': config(`  maintenance:\n    - { start: "${windowStart}", end: "${windowEnd}", checks: [status] }\n`) });
    expect((await runCli(['monitor', 'deploy', project.dir], env)).code).toBe(0);
    const before = received.length;
    siteTitle = 'broken';
    let c = await check('status');
    const base = c.recent.length;
    // Two failing verdicts inside the window: the alert is recorded muted, not sent.
    for (let i = 1; i <= 2; i++) {
      advance(MIN);
      await runsOf('status', base + 2 * i - 1);
      advance(30_000);
      c = await runsOf('status', base + 2 * i);
    }
    expect(c.consecutive_failures).toBe(2);
    expect(received.length).toBe(before);
    const muted = (await svc.call('GET', `/monitors/alerts?check_id=${c.id}`)).body[0];
    expect(muted).toMatchObject({ kind: 'failing', muted: true, deliveries: [] });
    // After the window, still failing: the alert goes out.
    nowMs = Date.parse(windowEnd) + 1000;
    await runsOf('status', base + 5);
    advance(30_000);
    c = await runsOf('status', base + 6);
    const hook = await eventually(() => received[before]);
    expect(JSON.parse(hook.raw)).toMatchObject({ kind: 'failing', consecutive_failures: 3 });
  });

  it('carries the schedule and the state across a restart', async () => {
    siteTitle = 'ok';
    const before = await check('status');
    await svc.close();
    await start();
    const after = await check('status');
    expect(after).toMatchObject({ status: before.status, consecutive_failures: before.consecutive_failures, next_run_at: before.next_run_at });
    nowMs = Date.parse(after.next_run_at!);
    const c = await runsOf('status', before.recent.length + 1);
    expect(c.status).toBe('passing');
    // Exactly one run for the slot.
    expect(c.recent.filter((r) => r.started_at >= after.next_run_at!)).toHaveLength(1);
  });
});

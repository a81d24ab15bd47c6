// The image of deploy/image/Containerfile, built as on a machine no container registry serves
// (deploy/image/build.sh --local-base: Debian from Debian's packages, Node and npm from the npm registry)
// from the package as `npm pack` makes it, then run as a cluster host runs it: uid 10001 without
// capabilities, the API key from a mounted file, the sandbox settings of deploy/kubernetes/hosts.yaml. A
// client then drives a session in it over real HTTP and CDP. Skipped with the reason where podman (or, on a
// host crun cannot run containers on, runc) is missing.
//
// The package is packed from a copy of the files `npm pack` would take, never in the checkout: packing
// there swaps package.json, which package/install.test.ts checks while it packs in another worker.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { eventually } from '../helpers/service.js';

const run = promisify(execFile);
/** A clean build: the Debian base (mmdebstrap, ~1.5 min), then Chromium's packages and the npm install. */
const BUILD_MS = 40 * 60_000;
const SERVICE_UID = 10001;
const KEY_IN_CONTAINER = '/run/secrets/bcs/api-key';

const onPath = (name: string) => spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0;
const engine = engineSetup();
if ('missing' in engine) console.log(`skipped: the container image: ${engine.missing}`);

/**
 * What podman needs here besides its defaults, as a containers.conf for it and for build.sh. As root it asks
 * for 1,048,576 open files and as many processes, which root without CAP_SYS_RESOURCE (CI's VMs) cannot grant:
 * the limits this process has are asked instead (processes: at most pid_max, where podman holds its own).
 * crun 1.8 (bookworm's) refuses to run anything where a cgroup v2 hierarchy with controllers sits beside
 * v1 (a hybrid host such as CI's); runc does not.
 */
function engineSetup(): { containersConf: string } | { missing: string } {
  if (!onPath('podman')) {
    return { missing: 'podman is not installed (Debian package podman; buildah alone builds the image with deploy/image/build.sh but does not run it)' };
  }
  const limits = readFileSync('/proc/self/limits', 'utf8');
  const hard = (name: string) => /^\S.*?\s{2,}\S+\s+(\S+)/.exec(limits.split('\n').find((l) => l.startsWith(name)) ?? '')?.[1] ?? 'unlimited';
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  const files = hard('Max open files');
  const processes = hard('Max processes') === 'unlimited' ? pidMax : Math.min(Number(hard('Max processes')), pidMax);
  const ulimits = `default_ulimits = ["nofile=${files}:${files}", "nproc=${processes}:${processes}"]`;
  const controllers = '/sys/fs/cgroup/unified/cgroup.controllers';
  const hybrid = existsSync(controllers) && readFileSync(controllers, 'utf8').trim() !== '';
  if (hybrid && !onPath('runc')) return { missing: `runc is not installed, and crun cannot run containers on this hybrid cgroup hierarchy (${controllers})` };
  return { containersConf: `[containers]\n${ulimits}\n${hybrid ? '[engine]\nruntime = "runc"\n' : ''}` };
}

let work: string;
let env: NodeJS.ProcessEnv;
const tag = `localhost/bcs-image-test:${process.pid}-${Date.now().toString(36)}`;
const container = `bcs-image-test-${process.pid}-${Date.now().toString(36)}`;
let buildLog = '';
let built = false;

function podman(args: string[], timeout = 120_000) {
  return run('podman', args, { env, timeout, maxBuffer: 64 << 20 });
}

/** The checkout packed as `npm pack` packs it (prepack's manifest: no scripts), from a copy of its files. */
async function packCheckout(into: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, env, maxBuffer: 64 << 20 });
  const [{ files }] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  const staging = join(into, 'package');
  for (const { path } of files) {
    if (path === 'package.json') continue;
    await mkdir(dirname(join(staging, path)), { recursive: true });
    await copyFile(join(ROOT, path), join(staging, path));
  }
  // The checkout's manifest, even mid-pack in another worker (pack-manifest.mjs keeps it beside).
  const kept = join(ROOT, 'package.json.checkout');
  const { scripts: _scripts, ...manifest } = JSON.parse(await readFile(existsSync(kept) ? kept : join(ROOT, 'package.json'), 'utf8'));
  await writeFile(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const packed = await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', into], { cwd: staging, env, maxBuffer: 64 << 20 });
  await rm(staging, { recursive: true, force: true });
  return join(into, packed.stdout.trim().split('\n').pop()!);
}

/** Runs build.sh, its output kept for the report and for a failure's message. */
function build(tarball: string): Promise<number | null> {
  const child = spawn(join(ROOT, 'deploy/image/build.sh'), ['--local-base', '--tarball', tarball, '--tag', tag], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (buildLog += d));
  child.stderr.on('data', (d) => (buildLog += d));
  return new Promise((resolve) => child.on('close', resolve));
}

beforeAll(async () => {
  if ('missing' in engine) return;
  work = await mkdtemp(join(tmpdir(), 'bcs-image-'));
  await writeFile(join(work, 'containers.conf'), engine.containersConf);
  // No intermediate images: once the tag goes, only the bases are left of the build (a layer cache would keep
  // a stale npm install behind per run, for a gain only on a machine that builds again).
  env = { ...process.env, CONTAINERS_CONF: join(work, 'containers.conf'), BUILDAH_LAYERS: 'false' };
  const started = Date.now();
  const tarball = await packCheckout(work);
  const code = await build(tarball);
  const summary = buildLog.split('\n').filter((l) => l.startsWith('build.sh:'));
  console.log(`the image, built in ${Math.round((Date.now() - started) / 1000)} s (packing included):\n  ${summary.join('\n  ')}`);
  if (code !== 0) throw new Error(`deploy/image/build.sh exited ${code}:\n${buildLog.slice(-6000)}`);
  built = true;
}, BUILD_MS);

afterAll(async () => {
  if ('missing' in engine) return;
  // The bases stay for the next build (build.sh keeps one of each); this run's container and tag go.
  await podman(['rm', '--force', '--ignore', container]).catch(() => undefined);
  if (built) await podman(['rmi', tag]).catch((err: Error) => console.warn(`could not remove ${tag}: ${err.message}`));
  if (work) await rm(work, { recursive: true, force: true });
}, 120_000);

/** The container's output so far, and whether it still runs. */
async function containerState() {
  const [logs, state] = await Promise.all([podman(['logs', container]), podman(['inspect', '--format', '{{.State.Running}} {{.State.ExitCode}}', container])]);
  const [running, exitCode] = state.stdout.trim().split(' ');
  return { stdout: logs.stdout, stderr: logs.stderr, running: running === 'true', exitCode: Number(exitCode) };
}

/**
 * Starts the service as hosts.yaml runs a host, reachable on a loopback port podman picks; waits for its
 * banner, or for it to stop. `unmask=ALL` is the pod's procMount: Unmasked and `seccomp=unconfined` its
 * seccompProfile, which bubblewrap needs to mount a fresh /proc and make its namespaces.
 */
async function startContainer(keyFile: string, extraArgs: string[] = []) {
  await podman(['rm', '--force', '--ignore', container]);
  await podman([
    'run', '--detach', '--name', container,
    '--user', `${SERVICE_UID}:${SERVICE_UID}`, '--cap-drop', 'all', '--security-opt', 'no-new-privileges',
    '--security-opt', 'seccomp=unconfined', '--security-opt', 'unmask=ALL',
    '--publish', '127.0.0.1::8340', '--volume', `${keyFile}:${KEY_IN_CONTAINER}:ro`,
    tag,
    'serve', '--host', '0.0.0.0', '--port', '8340', '--data-dir', '/var/lib/bcs/data', '--blob-dir', '/var/lib/bcs/blobs',
    '--api-key-file', KEY_IN_CONTAINER, ...extraArgs,
  ]);
  const state = await eventually(async () => {
    const s = await containerState();
    return !s.running || s.stderr.includes('bcs serve: network policy') ? s : undefined;
  }, 120_000, 500);
  return state;
}

describe.skipIf('missing' in engine)('the container image', { timeout: 180_000 }, () => {
  const key = `bcs_${randomBytes(32).toString('base64url')}`;
  let keyFile: string;
  let baseUrl: string;
  let banner = '';

  beforeAll(async () => {
    if (!built) return;
    // Readable inside by uid 10001 whatever podman maps it to; on this machine only through the 0700 folder.
    keyFile = join(work, 'api-key');
    await writeFile(keyFile, key);
    await chmod(keyFile, 0o444);
    let state = await startContainer(keyFile);
    if (!state.running) {
      // A host refuses to start without the sandbox (docs/cluster.md); here it may be the machine's kernel or
      // podman that stands in the way, so say so, and go on with the flag that accepts it.
      expect(state.stderr).toContain('bcs serve: refusing to start: the process sandbox is not available');
      console.warn(`the image's service refused to start sandboxed here, so it runs with --unsandboxed:\n${state.stderr.trim()}`);
      state = await startContainer(keyFile, ['--unsandboxed']);
    }
    expect(state.running, `the container stopped (exit ${state.exitCode}):\n${state.stdout}\n${state.stderr}`).toBe(true);
    banner = state.stderr;
    const { stdout } = await podman(['port', container, '8340/tcp']);
    baseUrl = `http://${stdout.trim().split('\n')[0]}`;
  }, 180_000);

  it('starts bcs serve as uid 10001 on Node 24, with Debian\'s Chromium and headless shell, and says how sessions are isolated', async () => {
    const isolation = /^bcs serve: (WARNING: )?isolation: (.*)$/m.exec(banner);
    console.log(`the image's service: isolation: ${isolation?.[2]}`);
    if (isolation?.[2]?.startsWith('unsandboxed')) expect(isolation[1]).toBe('WARNING: ');
    else expect(isolation?.[2]).toMatch(/^sandboxed \(bwrap at \/usr\/bin\/bwrap\): everything runs as the service's own user/);
    expect(banner).toContain('chromium /usr/lib/chromium/chromium (system); headless sessions: /usr/lib/chromium/chromium-headless-shell');
    expect(banner).toContain('data in /var/lib/bcs/data');
    const { stdout } = await podman(['exec', container, 'sh', '-c', 'id -u; node --version; command -v ffmpeg; cat /proc/1/cmdline | tr "\\0" " "']);
    const [uid, node, ffmpeg, init] = stdout.split('\n');
    expect(uid).toBe(String(SERVICE_UID));
    expect(node).toMatch(/^v24\./);
    expect(ffmpeg).toBe('/usr/bin/ffmpeg');
    expect(init).toMatch(/^tini -- bcs serve /);
    // The key came from the file: it is on no command line and in no output.
    expect(init).not.toContain(key);
    expect(banner + (await containerState()).stdout).not.toContain(key);
  });

  it('answers the probe the manifests run, with the key file', async () => {
    // Exit 0 (run throws otherwise): ready, as a readiness probe asks.
    const probe = await podman(['exec', container, 'bcs', 'probe', '--url', 'http://127.0.0.1:8340', '--api-key-file', KEY_IN_CONTAINER]);
    expect(probe.stdout + probe.stderr).toContain('ready: http://127.0.0.1:8340');
  });

  it('serves a session over HTTP that Playwright drives over its cdp_ws_url, then deletes it', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${baseUrl}/browsers`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ headless: true }) });
    const session = (await created.json()) as { session_id: string; cdp_ws_url: string };
    expect(created.status, JSON.stringify(session)).toBe(200);
    expect(session.cdp_ws_url.startsWith(baseUrl.replace(/^http/, 'ws'))).toBe(true);
    const browser = await chromium.connectOverCDP(session.cdp_ws_url);
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto('data:text/html,<title>Served from the image</title><p>hello</p>');
      expect(await page.title()).toBe('Served from the image');
      expect(await page.evaluate(() => navigator.userAgent)).toMatch(/Chrome\/\d+/);
    } finally {
      await browser.close();
    }
    const deleted = await fetch(`${baseUrl}/browsers/${session.session_id}`, { method: 'DELETE', headers: auth });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${baseUrl}/browsers/${session.session_id}`, { headers: auth })).status).toBe(404);
  });

  it('stops on SIGTERM with exit code 0, closing its browsers', async () => {
    await podman(['stop', '--time', '30', container]);
    const state = await containerState();
    expect(state.running).toBe(false);
    expect(state.exitCode).toBe(0);
    expect(state.stderr).toContain('bcs serve: stopping; closing every browser');
  });
});

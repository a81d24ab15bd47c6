// `bcs extensions`, `bcs proxies` and `bcs profiles` against a real service: an unpacked extension folder
// zipped and uploaded, listed and downloaded back; a custom proxy whose password comes from the environment
// or stdin and is never printed, checked through a real forward proxy that demands it; a profile created,
// downloaded as a tar and deleted.
import { spawn } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startSite, startTestProxy, type TestProxy, type TestSite } from '../service/proxies-fixtures.js';

const PASSWORD = 'pw-Zq81-never-printed';
let svc: TestService;
let site: TestSite;
let proxy: TestProxy;

beforeAll(async () => {
  site = await startSite();
  proxy = await startTestProxy({ username: 'agent', password: PASSWORD, hosts: { 'site.test': site.port } });
  svc = await startTestService({ standby: 0, proxyCheckUrl: 'http://site.test/health' });
});
afterAll(async () => {
  await svc.close();
  await proxy.close();
  await site.close();
});

/** Every output of the CLI in this file, to check that the proxy password never appears in any. */
const outputs: string[] = [];
async function bcs(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const res = await runCli(args, { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey, ...env });
  outputs.push(res.stdout, res.stderr);
  return res;
}
const json = (res: CliResult) => {
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
};

/** `bcs ARGS` with `input` piped to its stdin. */
function bcsWithStdin(args: string[], input: string): Promise<CliResult> {
  const child = spawn(process.execPath, ['runner/bcs.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      outputs.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function zipEntries(file: string): Promise<Record<string, string>> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true });
  const entries: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', async (entry: yauzl.Entry) => {
      try {
        const chunks: Buffer[] = [];
        for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
        entries[entry.fileName] = Buffer.concat(chunks).toString('utf8');
        zip.readEntry();
      } catch (err) {
        reject(err);
      }
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

describe('bcs extensions', () => {
  it('zips and uploads an unpacked extension folder, lists, downloads and deletes it', { timeout: 180_000 }, async () => {
    const manifest = JSON.stringify({
      manifest_version: 3, name: 'title changer', version: '1.0',
      content_scripts: [{ matches: ['<all_urls>'], js: ['scripts/content.js'], run_at: 'document_end' }],
    });
    const project = await inlineFiles({
      'title-changer/manifest.json': manifest,
      'title-changer/scripts/content.js': "document.title = 'changed by extension';",
    });
    const dir = project.path('title-changer');

    const uploaded = await bcs(['extensions', 'upload', dir]);
    expect(uploaded.code, uploaded.stderr).toBe(0);
    // Named after the folder when no --name is given.
    expect(uploaded.stdout).toMatch(/^uploaded extension title-changer \(id \w+, \d+ bytes\)\n$/);
    const listed = json(await bcs(['extensions', 'list', '--json']));
    expect(listed).toEqual([expect.objectContaining({ name: 'title-changer', size_bytes: expect.any(Number), checksum: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
    expect((await bcs(['extensions', 'list'])).stdout).toMatch(/^\w+\s+title-changer\s+\d+\s/m);

    // What the service kept is the folder, with its layout.
    const zip = project.path('back.zip');
    const downloaded = await bcs(['extensions', 'download', 'title-changer', '--out', zip]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect((await stat(zip)).size).toBe(listed[0].size_bytes);
    expect(await zipEntries(zip)).toEqual({ 'manifest.json': manifest, 'scripts/content.js': "document.title = 'changed by extension';" });

    // A zip is sent as it is: the same bytes, the same checksum.
    const again = json(await bcs(['extensions', 'upload', zip, '--name', 'copy', '--json']));
    expect(again).toMatchObject({ name: 'copy', checksum: listed[0].checksum });
    const taken = await bcs(['extensions', 'upload', dir]);
    expect([taken.code, taken.stderr]).toEqual([1, "bcs: an extension named 'title-changer' already exists in this project (conflict)\n"]);

    // An empty folder: inlineFiles writes files only, so this one is made by hand (removed with the project).
    await mkdir(project.path('not-an-extension'));
    const noManifest = await bcs(['extensions', 'upload', project.path('not-an-extension')]);
    expect(noManifest.code).toBe(2);
    expect(noManifest.stderr).toContain('no manifest.json at the top of the folder');

    for (const name of ['title-changer', 'copy']) expect((await bcs(['extensions', 'delete', name])).code).toBe(0);
    expect(json(await bcs(['extensions', 'list', '--json']))).toEqual([]);
  });
});

describe('bcs proxies', () => {
  it('creates a custom proxy with the password from the environment, checks it through the real proxy, never prints it', { timeout: 180_000 }, async () => {
    const created = await bcs(
      ['proxies', 'create', '--name', 'corp', '--protocol', 'http', '--host', '127.0.0.1', '--port', String(proxy.port), '--username', 'agent', '--password-env', 'CORP_PROXY_PASSWORD'],
      { CORP_PROXY_PASSWORD: PASSWORD },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(new RegExp(`^created proxy corp \\(id \\w+, custom agent@127.0.0.1:${proxy.port}\\)\\n$`));

    const listed = json(await bcs(['proxies', 'list', '--json']));
    expect(listed).toEqual([expect.objectContaining({ name: 'corp', config: { host: '127.0.0.1', port: proxy.port, username: 'agent', has_password: true } })]);
    const id = listed[0].id;

    // The check goes through the forward proxy, which only lets the right credentials in.
    const checked = await bcs(['proxies', 'check', id]);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toBe(`proxy corp: available (http://site.test answered 200 through http://127.0.0.1:${proxy.port})\n`);
    expect(proxy.accepted().some((s) => s.target.includes('site.test/health'))).toBe(true);
    expect((await bcs(['proxies', 'list'])).stdout).toMatch(new RegExp(`^${id}\\s+corp\\s+custom\\s+agent@127.0.0.1:${proxy.port}\\s+available\\s+\\d{4}-`, 'm'));
    const unreachable = await bcs(['proxies', 'check', id, '--url', 'http://nowhere.test/']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toMatch(/^proxy corp: unavailable \(.+\)\n$/);

    // From stdin (the trailing newline is not part of it): the proxy accepts it as well.
    const fromStdin = await bcsWithStdin(
      ['proxies', 'create', '--name', 'piped', '--protocol', 'http', '--host', '127.0.0.1', '--port', String(proxy.port), '--username', 'agent', '--password-stdin', '--json'],
      `${PASSWORD}\n`,
    );
    const piped = json(fromStdin);
    expect(piped.config.has_password).toBe(true);
    expect(json(await bcs(['proxies', 'check', piped.id, '--json'])).status).toBe('available');

    // Never as an argument, where any user could read it in the process list.
    const asArg = await bcs(['proxies', 'create', '--host', 'h', '--port', '1', '--password', 'x']);
    expect(asArg.code).toBe(2);
    expect(asArg.stderr).toContain("unknown option '--password'");
    const unset = await bcs(['proxies', 'create', '--host', 'h', '--port', '1', '--password-env', 'NOT_SET_ANYWHERE']);
    expect([unset.code, unset.stderr]).toEqual([2, 'bcs: --password-env NOT_SET_ANYWHERE: that environment variable is not set or empty\n']);
    const noHost = await bcs(['proxies', 'create', '--name', 'x']);
    expect([noHost.code, noHost.stderr]).toEqual([2, 'bcs: a custom proxy needs --host and --port\n']);

    for (const p of [id, piped.id]) expect((await bcs(['proxies', 'delete', p])).stdout).toBe(`deleted proxy ${p}\n`);
    expect(json(await bcs(['proxies', 'list', '--json']))).toEqual([]);
    expect(outputs.join('\n')).not.toContain(PASSWORD);
    expect(outputs.join('\n')).toContain('has_password');
  });
});

describe('bcs profiles', () => {
  it('creates a profile, lists it, downloads it as a tar and deletes it', { timeout: 120_000 }, async () => {
    const created = json(await bcs(['profiles', 'create', 'shopper', '--json']));
    expect(created).toMatchObject({ id: expect.any(String), name: 'shopper' });
    expect((await bcs(['profiles', 'list'])).stdout).toMatch(new RegExp(`^${created.id}\\s+shopper\\s+\\d{4}-`, 'm'));

    const project = await inlineFiles({});
    const tar = project.path('shopper.tar');
    const downloaded = await bcs(['profiles', 'download', 'shopper', '--out', tar]);
    expect(downloaded.code, downloaded.stderr).toBe(0);
    expect(downloaded.stdout).toBe(`wrote profile shopper to ${tar} (${(await stat(tar)).size} bytes)\n`);
    const bytes = await readFile(tar);
    // An empty profile is an empty tar: the two zero blocks that end one.
    expect(bytes.length % 512).toBe(0);
    expect(bytes.every((b) => b === 0)).toBe(true);

    const noOut = await bcs(['profiles', 'download', 'shopper']);
    expect(noOut.code).toBe(2);
    expect((await bcs(['profiles', 'delete', created.id])).stdout).toBe(`deleted profile ${created.id}\n`);
    const gone = await bcs(['profiles', 'download', 'shopper', '--out', tar]);
    expect([gone.code, gone.stderr]).toEqual([1, "bcs: profile 'shopper' not found (not_found)\n"]);
  });
});

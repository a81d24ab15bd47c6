// `--reporter blob` on each shard and `bcs merge-reports` after: a suite run in three shards and merged
// must give the reports the same suite run whole gives (scenarios in the run's order, the suite hook once,
// JUnit test cases, every screenshot and the video present beside the report, the summary and the exit
// code), and a set of blobs that is not one run's shards, once each, must be refused with a message
// naming what is wrong. Real runs of `bcs` against a real service, on pages the runner serves itself.
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CI_RUN_ID_VARIABLES } from '../../runner/reporters/run-id.js';
import { ROOT, type CliResult } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const SERVED = (name: string, extra = '') => `name: ${name}
serve: site
${extra}steps:
  - goto: /index.html
  - screenshot: page
  - expect: { text: Hello }
`;

const project = await inlineFiles({
  'suite/site/index.html': '<!doctype html><title>merge</title><h1 style="font-size:60px">Hello</h1>',
  'bcs.config.yaml': 'before: [hooks/setup.yaml]\n',
  'hooks/setup.yaml': 'name: setup\nsteps:\n  - goto: "data:text/html,<p>setup</p>"\n',
  'suite/alpha.yaml': SERVED('alpha recorded', 'replay: { record: true, framerate: 5 }\n'),
  'suite/beta.yaml': SERVED('beta'),
  'suite/delta.yaml': `${SERVED('delta marked skip')}skip: not yet\n`,
  'suite/epsilon.yaml': 'name: epsilon\nsteps:\n  - goto: "data:text/html,<h2>epsilon</h2>"\n  - screenshot: page\n',
  'suite/gamma.yaml': 'name: gamma fails\nserve: site\nsteps:\n  - goto: /index.html\n  - screenshot: page\n  - expect: { text: Nowhere, timeout: 300ms }\n',
});
// Not in file order: a run keeps the order it is given, while shards are cut from the suite sorted by file.
const SUITE = ['suite/gamma.yaml', 'suite/epsilon.yaml', 'suite/alpha.yaml', 'suite/delta.yaml', 'suite/beta.yaml'];
const VERSION = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version as string;

let svc: TestService;
/** The service, and no run id but the one a test gives: a CI running these tests has its own. */
const env = (runId?: string) => ({
  BCS_BASE_URL: svc.baseUrl,
  BCS_API_KEY: svc.apiKey,
  BCS_RUN_ID: runId ?? '',
  ...Object.fromEntries(CI_RUN_ID_VARIABLES.map((v) => [v, ''])),
});
const blobOf = (i: number) => project.path(`shard-${i}/bcs-blob-${i}-of-3.zip`);
const run = (args: string[], runId?: string) => project.run(args, env(runId));

let whole: CliResult;
let shards: CliResult[];
beforeAll(async () => {
  svc = await startTestService();
  [whole, ...shards] = await Promise.all([
    run(['run', ...SUITE, '--reporter', 'html,junit,json', '--output-dir', 'whole']),
    ...[1, 2, 3].map((i) => run(['run', ...SUITE, '--shard', `${i}/3`, '--reporter', 'blob', '--output-dir', `shard-${i}`], 'run-a')),
  ]);
}, 180_000);
afterAll(async () => {
  await svc?.close();
});

const results = async (dir: string) => JSON.parse(await readFile(project.path(`${dir}/results.json`), 'utf8'));
const testcases = (xml: string) => [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"/g)].map((m) => `${m[2]} › ${m[1]}`);
const totals = (xml: string) => /<testsuites ([^>]*)>/.exec(xml)![1]!.replace(/ time="[^"]*"| timestamp="[^"]*"/g, '');
/** The artifacts the HTML report shows (each figure's caption is its path) and how many of its images and videos are embedded. */
const shown = (html: string) => ({
  figures: [...html.matchAll(/<figcaption>([^<]*)<\/figcaption>/g)].map((m) => m[1]!).sort(),
  images: html.match(/<img class="shot" src="data:image\/png;base64,/g)?.length ?? 0,
  videos: html.match(/<video [^>]*src="data:video\/mp4;base64,/g)?.length ?? 0,
});
const exists = (path: string) => stat(path).then((s) => s.isFile(), () => false);

describe('bcs merge-reports', { timeout: 120_000 }, () => {
  it('makes of three shards the reports the whole run made', async () => {
    expect(whole.code, whole.stderr).toBe(1);
    expect(shards.map((s) => s.code)).toEqual([0, 0, 1]);
    for (const i of [1, 2, 3]) expect(await exists(blobOf(i)), shards[i - 1]!.stderr).toBe(true);

    const merged = await run(['merge-reports', 'shard-1', 'shard-2', 'shard-3', '--reporter', 'html,junit,json', '--output-dir', 'merged']);
    expect(merged.code, merged.stderr).toBe(whole.code);
    expect(merged.stderr).toContain(`merging 3 shards of run run-a (bcs ${VERSION}): 5 scenario results`);

    const [a, b] = [await results('whole'), await results('merged')];
    const names = (r: { scenarios: { name: string }[] }) => r.scenarios.map((s) => s.name);
    expect(names(a)).toEqual(['setup', 'gamma fails', 'epsilon', 'alpha recorded', 'beta']);
    expect(names(b)).toEqual(names(a));
    expect(b.summary).toEqual(a.summary);
    expect(b.skipped).toEqual(a.skipped);
    expect(b.shard).toBeUndefined();
    const statuses = (r: { scenarios: { status: string; steps: { status: string }[] }[] }) => r.scenarios.map((s) => [s.status, s.steps.map((st) => st.status)]);
    expect(statuses(b)).toEqual(statuses(a));

    const [junitA, junitB] = [await readFile(project.path('whole/junit.xml'), 'utf8'), await readFile(project.path('merged/junit.xml'), 'utf8')];
    expect(testcases(junitB)).toEqual(testcases(junitA));
    expect(testcases(junitB).length).toBeGreaterThan(20);
    expect(totals(junitB)).toEqual(totals(junitA));
    // Artifact paths in the JUnit report are absolute: the merged one's are where the merge put them.
    const attachments = [...junitB.matchAll(/\[\[ATTACHMENT\|([^\]]+)\]\]/g)].map((m) => m[1]!);
    expect(attachments.length).toBeGreaterThan(0);
    for (const file of attachments) {
      expect(file.startsWith(project.path('merged/')), file).toBe(true);
      expect(await exists(file), file).toBe(true);
    }

    const [htmlA, htmlB] = [await readFile(project.path('whole/report.html'), 'utf8'), await readFile(project.path('merged/report.html'), 'utf8')];
    const [seenA, seenB] = [shown(htmlA), shown(htmlB)];
    expect(seenB).toEqual(seenA);
    // Four screenshots and gamma's failure screenshot; alpha's video.
    expect(seenB.figures).toHaveLength(5);
    expect(seenB.videos).toBe(1);
    expect(htmlB).not.toContain('the file is missing');
    for (const path of seenB.figures) expect(await exists(project.path(`merged/${path}`)), path).toBe(true);
    const alpha = b.scenarios.find((s: { name: string }) => s.name === 'alpha recorded');
    for (const path of [alpha.replay.video, alpha.replay.vtt]) expect(await exists(project.path(`merged/${path}`)), path).toBe(true);
    // What --last-failed reads: the same failures the whole run recorded.
    const lastRun = async (dir: string) => JSON.parse(await readFile(project.path(`${dir}/.last-run.json`), 'utf8')).failed;
    expect(await lastRun('merged')).toEqual(await lastRun('whole'));
    expect(await lastRun('merged')).toEqual([{ file: project.path('suite/gamma.yaml'), name: 'gamma fails' }]);
  });

  it("takes the reporters and the output dir from the config, passing over the shards' blob reporter", async () => {
    await writeFile(project.path('merge.config.yaml'), 'reporter: [blob, junit]\noutput_dir: from-config\n');
    const merged = await run(['merge-reports', 'shard-1', 'shard-2', 'shard-3', '--config', 'merge.config.yaml']);
    expect(merged.code, merged.stderr).toBe(1);
    expect(testcases(await readFile(project.path('from-config/junit.xml'), 'utf8')).length).toBeGreaterThan(20);
    expect(await exists(project.path('from-config/report.html'))).toBe(false);
    // A flag still wins, and a reporter a merge cannot write is refused by name.
    const refused = await run(['merge-reports', 'shard-1', 'shard-2', 'shard-3', '--config', 'merge.config.yaml', '--reporter', 'blob']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("unknown reporter 'blob' for merge-reports; expected list, json, junit, html");
  });

  it('merges a shard that had nothing to run, and shards without a run id', async () => {
    const shardRuns = await Promise.all([1, 2].map((i) => run(['run', 'suite/epsilon.yaml', '--shard', `${i}/2`, '--reporter', 'blob', '--output-dir', 'lone'])));
    expect(shardRuns.map((r) => r.code)).toEqual([0, 0]);
    expect(shardRuns[1]!.stderr).toContain('shard 2/2 has no scenarios');
    const merged = await run(['merge-reports', 'lone', '--reporter', 'junit', '--output-dir', 'lone-merged', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stderr).toContain('the shards carry no run id');
    const out = JSON.parse(merged.stdout);
    expect(out.scenarios.map((s: { name: string }) => s.name)).toEqual(['setup', 'epsilon']);
    expect(out.summary).toMatchObject({ total: 2, passed: 2 });
    expect(testcases(await readFile(project.path('lone-merged/junit.xml'), 'utf8')).length).toBeGreaterThan(0);
  });

  it('refuses a missing shard, naming it', async () => {
    const res = await run(['merge-reports', 'shard-1', 'shard-3', '--output-dir', 'missing']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('bcs: cannot merge: shard 2/3 is missing (found 1/3, 3/3)');
  });

  it('refuses a shard given twice, naming both files', async () => {
    await mkdir(project.path('again'), { recursive: true });
    await copyFile(blobOf(3), project.path('again/bcs-blob-3-of-3.zip'));
    const res = await run(['merge-reports', 'shard-1', 'shard-2', 'shard-3', 'again', '--output-dir', 'twice']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('bcs: cannot merge: shard 3/3 is there twice: shard-3/bcs-blob-3-of-3.zip, again/bcs-blob-3-of-3.zip');
  });

  it('refuses shards of different runs, naming the runs and their shards', async () => {
    const other = await run(['run', ...SUITE, '--shard', '2/3', '--reporter', 'blob', '--output-dir', 'other-2'], 'run-b');
    expect(other.code, other.stderr).toBe(0);
    const res = await run(['merge-reports', 'shard-1', 'other-2', 'shard-3', '--output-dir', 'mixed']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(
      'bcs: cannot merge: the shards come from different runs: run run-a (BCS_RUN_ID): shards 1/3 (shard-1/bcs-blob-1-of-3.zip), 3/3 (shard-3/bcs-blob-3-of-3.zip); run run-b (BCS_RUN_ID): shard 2/3 (other-2/bcs-blob-2-of-3.zip)',
    );
  });

  it('refuses shards written by different versions of bcs', async () => {
    await mkdir(project.path('older'), { recursive: true });
    await rewriteManifest(blobOf(2), project.path('older/bcs-blob-2-of-3.zip'), (m) => ({ ...m, bcs_version: '0.0.1' }));
    const res = await run(['merge-reports', 'shard-1', 'older', 'shard-3', '--output-dir', 'versions']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`bcs: cannot merge: the shards come from different versions of bcs: bcs ${VERSION}: shards 1/3 (shard-1/bcs-blob-1-of-3.zip), 3/3 (shard-3/bcs-blob-3-of-3.zip); bcs 0.0.1: shard 2/3 (older/bcs-blob-2-of-3.zip)`);
  });

  it('refuses what is no blob, naming the file', async () => {
    await project.write({ 'junk/bcs-blob-1-of-1.zip': 'not a zip' });
    const res = await run(['merge-reports', 'junk']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('bcs: junk/bcs-blob-1-of-1.zip is not a readable zip archive');
    const none = await run(['merge-reports', 'suite/site']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('bcs: no blob reports (bcs-blob-*.zip) in suite/site');
  });
});

/** A copy of the blob at `from` whose manifest `change` rewrote: what another bcs would have written. */
async function rewriteManifest(from: string, to: string, change: (m: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  const require = createRequire(import.meta.url);
  const yauzl = require('yauzl') as typeof import('yauzl');
  const { ZipFile } = require('yazl') as typeof import('yazl');
  const source = await yauzl.openPromise(from, { lazyEntries: true, autoClose: false });
  const out = new ZipFile();
  for await (const entry of source.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await source.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    out.addBuffer(entry.fileName === 'bcs-blob.json' ? Buffer.from(JSON.stringify(change(JSON.parse(data.toString('utf8'))))) : data, entry.fileName);
  }
  source.close();
  out.end();
  await pipeline(out.outputStream, createWriteStream(to));
}

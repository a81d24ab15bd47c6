// `bcs run` against a target that has only the hosted API's wire (`bcs serve --strict-wire`): what the runner
// uses beyond it (replay markers and markers.vtt, a replay's duration_ms, exec's timed_out) it does without,
// keeping the markers itself, and says so once; against the full service the markers are the service's.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVtt } from '../../runner/reporters/html-embed.js';
import type { RunResult, ScenarioResult } from '../../runner/reporters/results.js';
import { ROOT, runCli, startCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const hasFfprobe = (() => {
  try {
    execFileSync('ffprobe', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasFfprobe) console.warn('skipping the video checks that need ffprobe: not installed');

const KEY = `bcs_${'s'.repeat(43)}`;
const NOTE = 'the target lacks what bcs adds to the hosted API';

const PAGE = `<!doctype html><title>strict</title><button id="go" onclick="document.title = 'pressed'">go</button>`;

/** Markers, a timed-out command whose timed_out is read back, and a second recorded scenario after it. */
const RECORDED = `name: recorded
serve: site
replay: { record: true, framerate: 10 }
steps:
  - goto: "{{ serve.url }}/index.html"
  - marker: page open
  - name: press the button
    click: "#go"
  - exec: { command: sleep, args: ["3"], timeout: 1s, expect: { exit_code: 124 }, save: slow }
  - name: the slow command timed out
    exec: { command: test, args: ["{{ slow.timed_out }}", "=", "true"] }
  - sleep: 200ms
`;
const SECOND = `name: second
replay: { record: true, framerate: 10 }
steps:
  - goto: "data:text/html,<title>second</title>"
  - marker: second open
`;

const project = await inlineFiles({ 'site/index.html': PAGE, 'recorded.yaml': RECORDED, 'second.yaml': SECOND });
let strictServe: ReturnType<typeof startCli>;
let strictUrl: string;
let strictData: string;
let full: TestService;

beforeAll(async () => {
  strictData = await mkdtemp(join(tmpdir(), 'bcs-strict-serve-'));
  // The standalone service as a team would start it, with the flag that turns our extensions off.
  strictServe = startCli(
    ['serve', '--strict-wire', '--port', '0', '--data-dir', strictData, '--unsandboxed', '--standby', '0', '--network-policy', 'local', '--log-level', 'silent'],
    { BCS_API_KEY: KEY },
  );
  let out = '';
  strictServe.child.stdout!.on('data', (d) => (out += d));
  [strictUrl, full] = await Promise.all([eventually(() => /^BCS_BASE_URL=(\S+)$/m.exec(out)?.[1]), startTestService()]);
});
afterAll(async () => {
  strictServe?.child.kill('SIGTERM');
  await strictServe?.done;
  await full?.close();
  await rm(strictData, { recursive: true, force: true });
});

async function runAgainst(env: Record<string, string>, out: string, files: string[]) {
  const res = await runCli(['run', ...files.map((f) => project.path(f)), '--reporter', 'list,json,html', '--output-dir', project.path(out)], env);
  const results = JSON.parse(await readFile(project.path(join(out, 'results.json')), 'utf8')) as RunResult;
  return { res, results, scenario: (name: string) => results.scenarios.find((s) => s.name === name)! };
}

/** What results.json's published schema finds wrong with `results`. */
async function schemaProblems(results: RunResult): Promise<string[]> {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // ajv-formats is CommonJS: its default export arrives as the module object or the function itself.
  const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (a: Ajv2020) => void;
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(await readFile(join(ROOT, 'runner/results.schema.json'), 'utf8')));
  return validate(results) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`);
}

/** The cues of the scenario's replay.vtt, as the HTML report reads them. */
async function cues(out: string, s: ScenarioResult) {
  return parseVtt(await readFile(project.path(join(out, s.replay!.vtt!)), 'utf8'));
}

const mainSteps = (s: ScenarioResult) => s.steps.filter((st) => st.phase === 'main');

describe('a run against a target with the hosted wire only', () => {
  it('passes, keeps the markers itself in replay.vtt and the report, and says once what the target lacked', async () => {
    const { res, results, scenario } = await runAgainst({ BCS_BASE_URL: strictUrl, BCS_API_KEY: KEY }, 'strict-out', ['recorded.yaml', 'second.yaml']);
    expect(res.code, res.stdout + res.stderr).toBe(0);

    // One note for the run, naming each thing the target lacked; no error.
    expect(res.stderr.split(NOTE).length - 1, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/replay markers \(the runner kept them[^)]*\); a replay's duration_ms \([^)]*\); exec's timed_out/);
    expect(results.target.lacks?.map((l) => l.feature)).toEqual(['replay markers', "a replay's duration_ms", "exec's timed_out"]);
    expect(await schemaProblems(results)).toEqual([]);

    const recorded = scenario('recorded');
    const replay = recorded.replay!;
    expect(replay.markers_by).toBe('runner');
    const names = replay.markers!.map((m) => m.name);
    // One per step, a marker step's own name for it.
    expect(names).toEqual(mainSteps(recorded).map((s) => (s.kind === 'marker' ? s.name.replace(/^marker /, '') : s.name)));
    expect(names).toEqual(expect.arrayContaining(['page open', 'press the button']));
    const offsets = replay.markers!.map((m) => m.offset_ms);
    expect([...offsets].sort((a, b) => a - b)).toEqual(offsets);
    // Each step's place in the video is its marker's.
    expect(mainSteps(recorded).map((s) => s.replay_offset_ms)).toEqual(offsets);
    expect(replay.duration_ms).toBeGreaterThan(offsets.at(-1)!);

    // The runner wrote replay.vtt from the markers it kept: one cue per marker, at its offset.
    const track = await cues('strict-out', recorded);
    expect(track.map((c) => ({ name: c.text, offset_ms: c.start_ms }))).toEqual(replay.markers);
    // The HTML report lists them, each seeking the video.
    const html = await readFile(project.path('strict-out/report.html'), 'utf8');
    expect(html).toContain('page open');
    expect(html).toContain('second open');

    if (hasFfprobe) {
      // The runner's timeline is the video's: its length as the runner timed it is the video's own.
      const probed = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_format', '-of', 'json', project.path(join('strict-out', replay.video))]).toString());
      expect(Math.abs(Number(probed.format.duration) * 1000 - replay.duration_ms!)).toBeLessThan(1000);
    }

    // The second scenario knew: its markers were kept without asking the target again.
    const second = scenario('second');
    expect(second.replay!.markers).toEqual([expect.objectContaining({ name: 'goto data:text/html,<title>second</title>' }), expect.objectContaining({ name: 'second open' })]);
    expect(mainSteps(second).find((s) => s.name === 'marker second open')!.request_ids).toEqual([]);
    expect((await cues('strict-out', second)).map((c) => c.text)).toEqual(['goto data:text/html,<title>second</title>', 'second open']);
  }, 240_000);
});

describe('the same run against the full service', () => {
  it('passes with the markers the service placed, and no note', async () => {
    const { res, results, scenario } = await runAgainst({ BCS_BASE_URL: full.baseUrl, BCS_API_KEY: full.apiKey }, 'full-out', ['recorded.yaml']);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(res.stderr).not.toContain(NOTE);
    expect(results.target.lacks).toBeUndefined();
    expect(await schemaProblems(results)).toEqual([]);

    const recorded = scenario('recorded');
    const replay = recorded.replay!;
    expect(replay.markers_by).toBe('target');
    // The service's own markers: the report's are the ones it holds for the replay.
    const sessionId = recorded.session_id!;
    const [stored] = (await full.call('GET', `/browsers/${sessionId}/replays`)).body as { markers: { name: string; offset_ms: number }[] }[];
    expect(replay.markers).toEqual(stored!.markers.map(({ name, offset_ms }) => ({ name, offset_ms })));
    expect(replay.duration_ms).toBe((await full.call('GET', `/browsers/${sessionId}/replays`)).body[0].duration_ms);
    expect((await cues('full-out', recorded)).map((c) => c.text)).toEqual(replay.markers!.map((m) => m.name));
    if (hasFfprobe) {
      const chapters = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_chapters', '-of', 'json', project.path(join('full-out', replay.video))]).toString());
      expect(chapters.chapters.map((c: { tags: { title: string } }) => c.tags.title)).toContain('page open');
    }
  }, 240_000);
});

// results.json and its published schema: real runs through the CLI (a pass, a failure, a recording with
// telemetry) validate against runner/results.schema.json; the schema refuses what it does not describe;
// and every field of the result types in runner/reporters/results.ts is in it, with a description.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blocksScenario } from '../helpers/blocks-scenario.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { inlineFiles } from '../helpers/inline-files.js';
import { startTestService, type TestService } from '../helpers/service.js';

type Json = Record<string, any>;

const BLOCKS = blocksScenario('blocks for the schema');

const project = await inlineFiles({
  'site/index.html': `<!doctype html><title>json</title><button id="oops" onclick="console.error('boom from the page')">oops</button>`,
});
let svc: TestService;
let schema: Json;
let validate: ValidateFunction;

beforeAll(async () => {
  schema = JSON.parse(await readFile(join(ROOT, 'runner/results.schema.json'), 'utf8'));
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // ajv-formats is CommonJS: its default export arrives as the module object or the function itself.
  const addFormats = ((addFormatsPlugin as unknown as { default?: unknown }).default ?? addFormatsPlugin) as (a: Ajv2020) => void;
  addFormats(ajv);
  validate = ajv.compile(schema);
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.close();
});

async function run(name: string, fileOrYaml: string): Promise<{ code: number | null; results: Json; stderr: string }> {
  let file = fileOrYaml;
  if (fileOrYaml.includes('\n')) {
    await project.write({ [`${name}.yaml`]: fileOrYaml });
    file = project.path(`${name}.yaml`);
  }
  const out = project.path(`${name}-out`);
  const res = await runCli(['run', file, '--reporter', 'json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
  return { code: res.code, results: JSON.parse(await readFile(join(out, 'results.json'), 'utf8')), stderr: res.stderr };
}

function expectValid(results: Json): void {
  const ok = validate(results);
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(ok).toBe(true);
}

describe('results.json against results.schema.json', () => {
  let passing: Json;

  it('validates a passing run with screenshots', async () => {
    const { code, results, stderr } = await run('passing', join(ROOT, 'scenarios/quickstart.yaml'));
    expect(code, stderr).toBe(0);
    expectValid(results);
    const shots = results.scenarios[0].steps.flatMap((s: Json) => s.artifacts).filter((a: Json) => a.type === 'screenshot');
    expect(shots.length).toBeGreaterThan(0);
    passing = results;
  });

  it('validates a failing run: error kind, message and location, skipped steps with a note', async () => {
    const { code, results } = await run(
      'failing',
      `name: failing for the schema
steps:
  - goto: "data:text/html,<h1>Hello</h1>"
  - expect: { text: Goodbye, timeout: 300ms }
  - goto: "data:text/html,never"
`,
    );
    expect(code).toBe(1);
    expectValid(results);
    const steps = results.scenarios[0].steps;
    expect(steps.find((s: Json) => s.status === 'failed').error.kind).toBe('assertion');
    expect(steps.find((s: Json) => s.status === 'skipped').note).toMatch(/skipped/);
  });

  it('validates a recorded run: replay paths, step offsets and telemetry notes', async () => {
    const { code, results, stderr } = await run(
      'recorded',
      `name: recorded for the schema
serve: site
replay: { record: true, framerate: 5 }
telemetry: { console: true }
steps:
  - goto: "{{ serve.url }}/index.html"
  - click: "#oops"
  - sleep: 300ms
`,
    );
    expect(code, stderr).toBe(0);
    expectValid(results);
    const scenario = results.scenarios[0];
    expect(scenario.replay.video).toMatch(/replay\.mp4$/);
    expect(scenario.steps.some((s: Json) => typeof s.replay_offset_ms === 'number')).toBe(true);
    expect(scenario.replay).toMatchObject({ markers_by: 'target', duration_ms: expect.any(Number) });
    expect(scenario.replay.markers.map((m: Json) => m.name)).toEqual(scenario.steps.filter((s: Json) => s.phase === 'main').map((s: Json) => s.name));
    expect(scenario.steps.flatMap((s: Json) => s.telemetry ?? []).map((t: Json) => t.message).join()).toContain('boom from the page');
  });

  it('validates a run with control blocks: depth, iteration, attempts, soft and ignored failures', async () => {
    const { code, results } = await run('blocks', BLOCKS);
    expect(code).toBe(1);
    expectValid(results);
    const steps: Json[] = results.scenarios[0].steps;
    const pick = (match: (s: Json) => boolean) => steps.filter(match).map((s) => [s.depth, s.iteration, s.status, s.continued, s.attempts]);
    expect(pick((s) => s.name === 'round 1')).toEqual([[1, 1, 'passed', undefined, undefined]]);
    expect(pick((s) => s.name === 'maybe there')).toEqual([[undefined, undefined, 'failed', 'ignored', undefined]]);
    expect(pick((s) => s.kind === 'retry')).toEqual([[undefined, undefined, 'passed', undefined, 2]]);
    expect(steps.some((s) => s.continued === 'soft')).toBe(true);
  });

  it('validates a run stopped by --bail: the scenarios it never started', async () => {
    await project.write({
      'bail-first.yaml': 'name: bail first\nsteps:\n  - expect: { title: Nope, timeout: 200ms }\n',
      'bail-second.yaml': 'name: bail second\nsteps:\n  - sleep: 10ms\n',
    });
    const failing = project.path('bail-first.yaml');
    const never = project.path('bail-second.yaml');
    const out = project.path('bail-out');
    const res = await runCli(['run', failing, never, '--bail', '--reporter', 'json', '--output-dir', out], { BCS_BASE_URL: svc.baseUrl, BCS_API_KEY: svc.apiKey });
    expect(res.code).toBe(1);
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8'));
    expectValid(results);
    expect(results.skipped).toEqual([{ name: 'bail second', file: never, reason: 'bail' }]);
    expect(results.summary.skipped).toBe(1);
  });

  it('refuses results it does not describe, naming the field', () => {
    expect(passing).toBeDefined();
    const mutated = (change: (r: Json) => void) => {
      const copy = structuredClone(passing);
      change(copy);
      return copy;
    };
    const problems = (r: Json) => (validate(r) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`));
    expect(problems(mutated((r) => (r.scenarios[0].steps[0].surprise = 1)))).toContain('/scenarios/0/steps/0 must NOT have additional properties');
    expect(problems(mutated((r) => (r.scenarios[0].status = 'ok'))).join()).toContain('/scenarios/0/status must be equal to one of the allowed values');
    expect(problems(mutated((r) => delete r.scenarios[0].steps[1].request_ids)).join()).toContain("must have required property 'request_ids'");
    expect(problems(mutated((r) => (r.started_at = 'yesterday'))).join()).toContain('/started_at must match format "date-time"');
  });
});

describe('the schema covers the result types', () => {
  /** Each interface of the result types, and where the schema describes it. */
  const NODES: Record<string, (s: Json) => Json> = {
    RunResult: (s) => s,
    ScenarioResult: (s) => s.$defs.scenario,
    ReplayResult: (s) => s.$defs.scenario.properties.replay,
    StepResult: (s) => s.$defs.step,
    StepError: (s) => s.$defs.step.properties.error,
    Artifact: (s) => s.$defs.step.properties.artifacts.items,
    TelemetryNote: (s) => s.$defs.step.properties.telemetry.items,
    SourceLocation: (s) => s.$defs.step.properties.source,
  };

  /** Properties of an interface (and of the object types written inline in it), with whether each is optional. */
  function members(node: ts.InterfaceDeclaration | ts.TypeLiteralNode, path: string, out: Map<string, boolean>): void {
    for (const m of node.members) {
      if (!ts.isPropertySignature(m) || !m.name || !ts.isIdentifier(m.name)) continue;
      const key = `${path}${m.name.text}`;
      out.set(key, Boolean(m.questionToken));
      if (m.type && ts.isTypeLiteralNode(m.type)) members(m.type, `${key}.`, out);
    }
  }

  async function interfaces(): Promise<Map<string, Map<string, boolean>>> {
    const found = new Map<string, Map<string, boolean>>();
    for (const file of ['runner/reporters/results.ts', 'src/scenario/plan.ts']) {
      const source = ts.createSourceFile(file, await readFile(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
      source.forEachChild((n) => {
        if (!ts.isInterfaceDeclaration(n) || !(n.name.text in NODES)) return;
        const props = new Map<string, boolean>();
        members(n, '', props);
        found.set(n.name.text, props);
      });
    }
    return found;
  }

  it('has every field, required exactly when the type requires it, each with a description', async () => {
    const found = await interfaces();
    expect([...found.keys()].sort()).toEqual(Object.keys(NODES).sort());
    const resolve = (node: Json): Json => (node.$ref ? { ...schema.$defs[node.$ref.split('/').pop()], ...node } : node);
    const problems: string[] = [];
    for (const [name, props] of found) {
      for (const [path, optional] of props) {
        let parent = NODES[name]!(schema);
        const keys = path.split('.');
        for (const k of keys.slice(0, -1)) parent = resolve(parent.properties[k]);
        const key = keys.at(-1)!;
        const node = parent.properties?.[key];
        if (!node) {
          problems.push(`${name}.${path} is not in the schema`);
          continue;
        }
        if (!resolve(node).description) problems.push(`${name}.${path} has no description`);
        const required = (parent.required ?? []).includes(key);
        if (required === optional) problems.push(`${name}.${path} is ${optional ? 'optional' : 'required'} in the type but not in the schema`);
      }
    }
    expect(problems).toEqual([]);
  });
});

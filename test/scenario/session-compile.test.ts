import { describe, expect, it } from 'vitest';
import { compileScenario } from '../../src/scenario/compile.js';
import { ScenarioError, formatDiagnostic } from '../../src/scenario/diagnostics.js';
import { loadScenarioSource } from '../../src/scenario/load.js';
import { acquireCall, releaseCall } from '../../src/scenario/browser-calls.js';
import type { AcquireBrowser, Operation, Plan, ReleaseBrowser } from '../../src/scenario/plan.js';
import { validateScenario } from '../../src/scenario/validate.js';

const FILE = 'scenarios/t.yaml';
function plan(yaml: string): Plan {
  const loaded = loadScenarioSource(FILE, yaml);
  const problems = validateScenario(loaded);
  if (problems.length) throw new ScenarioError(problems);
  return compileScenario(loaded, { env: {} });
}
function errors(yaml: string): string[] {
  try {
    plan(yaml);
    return [];
  } catch (err) {
    return (err as ScenarioError).diagnostics.map(formatDiagnostic);
  }
}
const ops = (p: Plan, kind: string): Operation[] => p.steps.find((s) => s.kind === kind)!.operations;

describe('browser from a pool', () => {
  const p = plan(`name: t
browser: { pool: warm, acquire_timeout: 5s, name: leased, tags: { team: qa } }
steps:
  - goto: "data:text/html,x"
`);

  it('leases with a long poll and fails clearly on 204', () => {
    expect(ops(p, 'browser')).toEqual([
      { op: 'acquire_browser', pool: 'warm', acquire_timeout_ms: 5000, body: { acquire_timeout_seconds: 5, name: 'leased', tags: { team: 'qa' } }, save: 'session' },
      { op: 'connect', ws_url: '{{ session.cdp_ws_url }}' },
    ]);
    expect(p.steps.find((s) => s.kind === 'browser')!.timeout_ms).toBe(65_000);
    expect(acquireCall(ops(p, 'browser')[0] as AcquireBrowser)).toEqual({
      method: 'POST', path: '/browser_pools/warm/acquire', body: { acquire_timeout_seconds: 5, name: 'leased', tags: { team: 'qa' } },
    });
  });

  it('releases for reuse, or for replacement after a failure, instead of deleting', () => {
    expect(ops(p, 'release')).toEqual([{ op: 'disconnect' }, { op: 'release_browser', pool: 'warm' }]);
    const release = ops(p, 'release')[1] as ReleaseBrowser;
    expect(releaseCall(release, 's1', false)).toEqual({ method: 'POST', path: '/browser_pools/warm/release', body: { session_id: 's1', reuse: true } });
    expect(releaseCall(release, 's1', true)).toEqual({ method: 'POST', path: '/browser_pools/warm/release', body: { session_id: 's1', reuse: false } });
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });

  it('refuses browser options that belong to the pool, at the option', () => {
    expect(errors('name: t\nbrowser: { pool: warm, headless: false }\nsteps:\n  - sleep: 1ms\n')).toEqual([
      "scenarios/t.yaml:2:34 'headless' comes from the pool's configuration; with 'pool' only acquire_timeout, name, tags, start_url apply",
    ]);
    expect(errors('name: t\nbrowser: { acquire_timeout: 5s }\nsteps:\n  - sleep: 1ms\n')).toEqual([
      "scenarios/t.yaml:2:29 'acquire_timeout' applies only with 'pool'",
    ]);
  });
});

describe('replay', () => {
  const p = plan(`name: t
replay: { record: true, framerate: 10 }
steps:
  - goto: "data:text/html,x"
  - marker: loaded
  - sleep: 10ms
`);

  it('starts after the browser, marks every step, and saves video and markers before releasing', () => {
    expect(p.steps.map((s) => s.kind)).toEqual(['browser', 'replay', 'goto', 'marker', 'sleep', 'replay_stop', 'release']);
    expect(ops(p, 'replay')[0]).toMatchObject({ method: 'POST', path: '/browsers/{{ session.session_id }}/replays', body: { framerate: 10 }, save: 'replay', replay: 'start' });
    const marker = (name: string) => ({
      op: 'api', method: 'POST', path: '/browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/markers', body: { name }, replay: 'marker',
    });
    expect(ops(p, 'goto')[0]).toEqual(marker('goto data:text/html,x'));
    expect(ops(p, 'marker')).toEqual([marker('loaded')]);
    const save = ops(p, 'replay_stop');
    expect(save.map((o) => ('path' in o ? `${o.op} ${o.path}` : o.op))).toEqual([
      'api /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/stop',
      'poll /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}',
      'api /browsers/{{ session.session_id }}/replays/{{ replay.replay_id }}/markers.vtt',
    ]);
    expect(save[0]).toMatchObject({ replay: 'stop' });
    expect(save[1]).toMatchObject({ response: 'bytes', pending_status: [202], artifact: { type: 'video', file: 'replay.mp4' } });
    expect(save[2]).toMatchObject({ response: 'bytes', artifact: { type: 'file', file: 'replay.vtt' }, replay: 'markers_vtt' });
  });

  it('needs recording for marker steps', () => {
    expect(errors('name: t\nsteps:\n  - marker: here\n')).toEqual([
      "scenarios/t.yaml:3:13 a marker needs the run to be recorded: add 'replay: { record: true }'",
    ]);
  });
});

describe('telemetry', () => {
  it('asks for the categories at create and collects them before the browser goes', () => {
    const p = plan('name: t\ntelemetry: { console: true }\nsteps:\n  - sleep: 1ms\n');
    expect(ops(p, 'browser')[0]).toMatchObject({ body: { telemetry: { enabled: true, browser: { console: { enabled: true } } } } });
    expect(p.steps.map((s) => s.kind)).toEqual(['browser', 'sleep', 'telemetry', 'release']);
    expect(ops(p, 'telemetry')).toEqual([
      {
        op: 'attach_telemetry', path: '/browsers/{{ session.session_id }}/telemetry/events',
        query: { category: 'console', since: '{{ run.started_at }}', limit: '100' },
      },
    ]);
  });

  it('true means console and network', () => {
    const p = plan('name: t\ntelemetry: true\nreplay: { record: true }\nsteps:\n  - sleep: 1ms\n');
    expect(ops(p, 'telemetry')[0]).toMatchObject({ query: { category: 'console,network' } });
    expect(p.steps.map((s) => s.kind)).toEqual(['browser', 'replay', 'sleep', 'replay_stop', 'telemetry', 'release']);
  });
});

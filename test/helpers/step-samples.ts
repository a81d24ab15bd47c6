// Arguments for each step kind's builder method (STEP_METHODS): a kind the schema gains needs a sample here.
// The builder tests check each writes its kind; the drift tests compile each and follow it to the runner.
import { STEP_METHODS, scenario, type ScenarioBuilder, type StepKind, type StepsBuilder } from '../../src/scenario/index.js';

/** Arguments for each kind's method; a kind the schema gains needs a sample here (the type checker says so). */
export const STEP_SAMPLES: Record<StepKind, unknown[]> = {
  goto: ['https://example.test'], go_back: [], go_forward: [{ wait_until: 'commit' }], reload: [{ wait_until: 'domcontentloaded' }], click: ['#go'], fill: ['#name', 'Ada'], press: ['Enter'], expect: [{ text: 'hi' }],
  hover: ['#a'], check: [{ label: 'ok' }], uncheck: ['#b'], select: [{ label: 'Colour' }, 'Blue'], type: ['#q', 'abc', { delay: 20 }],
  focus: ['#q'], scroll_into_view: ['#end'], drag: ['#a', { test_id: 'bin' }], set_input_files: ['#f', []],
  switch_page: [{ url: { contains: 'help' } }], close_page: [], dialog: ['accept'], route: [{ url: '**/api', abort: true }],
  save_storage_state: ['state.json'], unroute: ['all'], request: [{ url: 'https://example.test/api', expect: { status: 200 } }], wait_for_response: ['**/api'], expect_accessible: [{ impact: 'critical', exclude: ['.ad'], tags: ['wcag2a'] }], expect_screenshot: [{ name: 'home', mask: [{ test_id: 'clock' }], max_diff_pixels: 5 }], wait_for_download: [{ name: 'report.csv', expect: { contains: 'a' } }],
  screenshot: ['shot'], sleep: [10], computer: [(c: { key(k: string): unknown }) => c.key('Return')],
  clipboard: [{ write: 'x' }], exec: ['true'], spawn: ['sleep 1'], wait_process: [{ process: 'job' }],
  read_file: ['/tmp/a'], write_file: [{ path: '/tmp/a', content: 'x' }], upload: [[{ from: 'a', to: '/tmp/a' }]],
  wait_file: ['/tmp/a'], execute: ['return 1'], invoke: [{ app: 'titles', action: 'title', payload: { n: 1 }, timeout: 5000, expect: { json: { path: '$.t', contains: 'a' } } }], script: ['return 1'], marker: ['m'], function: ['call', () => 1],
  expect_soft: [{ text: 'hi' }], if: [{ exists: 'x' }, (s: StepsBuilder) => s.goto('a')], repeat: [2, (s: StepsBuilder) => s.goto('a')],
  for_each: [['a', 'b'], (s: StepsBuilder) => s.goto('{{ item }}')], retry: [2, (s: StepsBuilder) => s.goto('a')], include: ['other.yaml'],
};

/** A recorded scenario whose last step is `kind`'s sample, written with its builder method. */
export function withSample(kind: string): ScenarioBuilder {
  const method = (STEP_METHODS as Record<string, string>)[kind]!;
  const b = scenario('kinds').baseUrl('https://example.test').replay();
  if (kind === 'wait_process') b.spawn({ command: 'sleep', save: 'job' });
  (b[method as keyof ScenarioBuilder] as (...args: unknown[]) => unknown)(...(STEP_SAMPLES as Record<string, unknown[]>)[kind]!);
  return b;
}

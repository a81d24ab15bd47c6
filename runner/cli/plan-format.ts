// `bcs plan`: a Plan as a person reads it — phases, steps with their source lines, and each operation.
// API calls read like a request (`PUT /browsers/{{ session.session_id }}/fs/write_file?path=/tmp/a.txt`)
// with what happens to the answer on the lines below it.
import { describeAssertion, describeValueCheck, preview } from '../../src/scenario/assertions.js';
import { acquireCall, noFreeBrowser, releaseCall } from '../../src/scenario/browser-calls.js';
import type { ApiCall, Operation, Plan, PlanStep, ReplayRole } from '../../src/scenario/plan.js';

/** Headings by phase and hook: `before` and `after` steps are main steps with their own heading. */
const TITLES: Record<string, string> = {
  setup: 'setup',
  before: 'before (ahead of the steps)',
  main: 'steps',
  after: 'after (runs even when a step failed)',
  teardown: 'teardown (always runs)',
};

export function formatPlan(plan: Plan): string {
  const lines = [`${plan.scenario.name}  ${plan.scenario.file}${plan.scenario.tags.length ? `  [${plan.scenario.tags.join(', ')}]` : ''}`];
  const defaults = plan.scenario.defaults ?? [];
  if (defaults.length) {
    lines.push('', 'from defaults files');
    const width = Math.max(...defaults.map((d) => d.field.length));
    for (const d of defaults) lines.push(`  ${d.field.padEnd(width)}  ${d.file}:${d.line}:${d.col}`);
  }
  let heading: string | undefined;
  for (const step of plan.steps) {
    const title = TITLES[step.hook ?? step.phase]!;
    if (title !== heading) {
      heading = title;
      lines.push('', title);
    }
    formatStep(step, '  ', lines, plan.scenario.file);
  }
  return `${lines.join('\n')}\n`;
}

/** A step, its operations, and for a block its steps one level deeper. */
function formatStep(step: PlanStep, indent: string, lines: string[], scenarioFile: string): void {
  // A step written in another file (a defaults file's hook, an included part) names that file.
  const where = step.source.file !== scenarioFile ? `${step.source.file}:${step.source.line}:${step.source.col}` : `line ${step.source.line}:${step.source.col}`;
  lines.push(`${indent}${String(step.index + 1).padStart(2)}. ${step.name}  (${where}${stepOptions(step)})`);
  const body = `${indent}      `;
  for (const op of step.operations) {
    const [first, ...more] = describeOperation(op).split('\n');
    lines.push(`${body}${first}`, ...more.map((l) => `${body}  ${l}`));
  }
  const b = step.block;
  if (!b) return;
  const inner = `${indent}    `;
  switch (b.type) {
    case 'if':
      lines.push(`${body}then`);
      for (const s of b.then) formatStep(s, `${body}  `, lines, scenarioFile);
      if (b.else.length) {
        lines.push(`${body}else`);
        for (const s of b.else) formatStep(s, `${body}  `, lines, scenarioFile);
      }
      return;
    case 'for_each':
      lines.push(typeof b.items === 'string'
        ? `${body}items: ${b.items}, resolved when the block starts; each one is {{ ${b.as} }}`
        : `${body}${b.items.length} item${b.items.length === 1 ? '' : 's'}: ${preview(b.items, 100)}; each one is {{ ${b.as} }}`);
      break;
    case 'repeat':
      if (b.as) lines.push(`${body}{{ ${b.as} }} is the pass number, from 1`);
      break;
    case 'retry':
      const limits = [b.attempts !== undefined ? `at most ${b.attempts} times` : '', b.timeout_ms !== undefined ? `no new attempt after ${b.timeout_ms} ms` : ''].filter(Boolean).join(', ');
      const pauses = b.intervals_ms ? `, ${b.intervals_ms.join(', ')} ms apart (the last repeating)` : b.delay_ms ? `, ${b.delay_ms} ms apart` : '';
      lines.push(`${body}run the steps again from the first until all pass, ${limits}${pauses}`);
      break;
    case 'include':
      break;
  }
  for (const s of b.steps) formatStep(s, inner, lines, scenarioFile);
}

function stepOptions(step: PlanStep): string {
  const parts: string[] = [];
  // A block without a budget of its own has 0: its steps keep theirs.
  if (!step.block || step.timeout_ms > 0) parts.push(`timeout ${step.timeout_ms} ms`);
  if (step.retries) parts.push(`retries ${step.retries}${step.retry_delay_ms ? ` ${step.retry_delay_ms} ms apart` : ''}`);
  if (step.soft) parts.push('soft: a failure does not stop the run');
  if (step.continue_on_error) parts.push('continue on error');
  return parts.map((p) => `, ${p}`).join('');
}

/** One line for the operation, then one per follow-up (checks, artifact, saved variable). */
export function describeOperation(op: Operation): string {
  switch (op.op) {
    case 'serve':
      return `serve folder ${op.dir} -> {{ ${op.save}.url }}`;
    case 'serve_stop':
      return 'stop serving';
    case 'api': {
      const { op: _op, ...call } = op;
      if (!call.decode && !call.expect && !call.expect_soft && !call.artifact && !call.replay) {
        // The plain form, as setup and teardown calls have always read.
        return `${request(call)}${call.save ? ` -> {{ ${call.save} }}` : ''}`;
      }
      return [request(call), ...followUps(call)].join('\n');
    }
    case 'poll': {
      const { op: _op, until, interval_ms, pending_status, waiting_for, ...call } = op;
      const conditions = until.length ? ` until ${until.map(describeAssertion).join(', ')}` : ' until it answers';
      const pending = pending_status?.length ? ` (${pending_status.join(', ')} = not yet)` : '';
      return [`poll every ${interval_ms} ms: ${request(call)}${conditions}${pending}`, `waiting for ${waiting_for}`, ...followUps(call)].join('\n');
    }
    case 'acquire_browser': {
      const call = `${request(acquireCall(op))} -> {{ ${op.save} }}`;
      if (!('pool' in op)) return `create the browser: ${call}\n(or take the one the run prepared ahead from the same body)`;
      return `lease a browser from pool ${op.pool}: ${call}\nno browser free (204): fail with "${noFreeBrowser(op)}"`;
    }
    case 'release_browser': {
      const call = request(releaseCall(op, '{{ session.session_id }}', false));
      if (!('pool' in op)) return `delete the browser: ${call}\n(a prepared browser shared with other scenarios: close its context instead; a kept one: nothing)`;
      return `release the browser to pool ${op.pool}: ${call}\nif an earlier step failed, reuse: false (the pool replaces the browser)`;
    }
    case 'connect':
      // The context the scenario's page opens in, with the options the scenario (and its defaults) gave it.
      return [`playwright connectOverCDP ${op.ws_url}`, ...(op.context ? [`new context ${JSON.stringify(op.context)}`] : [])].join('\n');
    case 'disconnect':
      return 'playwright disconnect';
    case 'page': {
      const { op: _op, action, ...args } = op;
      return `page ${action} ${JSON.stringify(args)}`;
    }
    case 'expect_value':
      return `expect ${op.var}${'value' in op ? ` (${JSON.stringify(op.value)})` : ''} ${op.not ? 'not ' : ''}${op.checks.map(describeValueCheck).join(', ')} (once)`;
    case 'attach_telemetry':
      return `GET ${op.path}?${Object.entries(op.query).map(([k, v]) => `${k}=${v}`).join('&')} (every page)\nattach console errors and failed requests to the steps they happened in`;
    case 'function':
      return `call function ${op.id} with the page, context, browser, session and variables${op.save ? ` -> {{ ${op.save} }}` : ''}`;
    case 'script':
      return [`run in the runner with its page, context, browser and variables${op.save ? ` -> {{ ${op.save} }}` : ''}:`, ...op.code.trim().split('\n').map((l) => `  ${l}`)].join('\n');
    case 'secrets':
      return `read ${Object.entries(op.secrets).map(([name, src]) => `{{ secrets.${name} }} from ${'env' in src ? `env ${src.env}` : `file ${src.file}`}`).join(', ')}\nmask their values as *** in everything reported`;
    case 'web_server':
      return [
        `start sh -c ${JSON.stringify(op.command)} in ${op.cwd} (its own process group)${op.reuse_existing ? ', unless something answers there already' : ''}`,
        `wait until ${op.url} answers below 500, at most ${op.timeout_ms} ms -> {{ ${op.save}.url }}`,
      ].join('\n');
    case 'web_server_stop':
      return "stop the web server's process group (SIGTERM, then SIGKILL)";
    case 'auth': {
      const c = op.connection;
      const find = 'id' in c
        ? `GET /auth/connections/${c.id}`
        : `GET /auth/connections?domain=${c.domain}&profile_name=${c.profile_name} (the one for that domain and profile)`;
      return [
        `${find} -> {{ ${op.save} }}`,
        'unless it is AUTHENTICATED: POST /auth/connections/{id}/login (unless a flow is in progress),',
        '  then follow GET /auth/connections/{id}/events until the flow ends',
        'a flow that ends other than SUCCESS fails the run (infrastructure); one waiting for a person says where to complete it',
      ].join('\n');
    }
  }
}

function request(call: ApiCall): string {
  // Query values shown unencoded: the plan is for reading, the transport encodes.
  const query = call.query ? `?${Object.entries(call.query).map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  let body = '';
  if (call.body !== undefined) body = ` ${JSON.stringify(call.body)}`;
  else if (call.raw_body) body = 'text' in call.raw_body ? ` <text, ${Buffer.byteLength(call.raw_body.text)} bytes>` : ` <file ${call.raw_body.file}>`;
  else if (call.form) body = ` multipart ${call.form.map((f) => ('file' in f ? `${f.name}=@${f.file}` : `${f.name}=${f.value}`)).join(' ')}`;
  const answer = call.response === 'bytes' ? ' -> bytes' : '';
  return `${call.method} ${call.path}${query}${body}${answer}`;
}

/** What each call of a recording is to the runner, and what it does where the target lacks our replay extensions. */
const REPLAY_ROLES: Record<ReplayRole, string> = {
  start: "the video's 0 is when this answers (for markers the runner keeps itself)",
  marker: "the step's offset in the replay is the response's offset_ms; where the target has no markers, the runner keeps it from the video's 0",
  stop: "the video's length is the response's duration_ms; where the target gives none, the runner's time from start to stop",
  markers_vtt: 'where the target has no markers or no markers.vtt, the runner writes the file from the markers it kept',
};

function followUps(call: ApiCall): string[] {
  const lines: string[] = [];
  if (call.replay) lines.push(REPLAY_ROLES[call.replay]);
  if (call.artifact) lines.push(`write ${call.artifact.type} artifact ${call.artifact.file}`);
  if (call.expect?.length) lines.push(`expect ${call.expect.map(describeAssertion).join(', ')}`);
  if (call.expect_soft?.length) lines.push(`expect (soft) ${call.expect_soft.map(describeAssertion).join(', ')}`);
  if (call.save) lines.push(`save ${call.decode ? `${call.decode} result` : 'response'} as {{ ${call.save} }}`);
  return lines;
}

// `bcs plan`: a Plan as a person reads it — phases, steps with their source lines, and each operation.
// API calls read like a request (`PUT /browsers/{{ session.session_id }}/fs/write_file?path=/tmp/a.txt`)
// with what happens to the answer on the lines below it.
import { describeAssertion } from '../src/scenario/assertions.js';
import type { ApiCall, Operation, Plan, StepPhase } from '../src/scenario/plan.js';

const PHASE_TITLES: Record<StepPhase, string> = {
  setup: 'setup',
  main: 'steps',
  teardown: 'teardown (always runs)',
};

export function formatPlan(plan: Plan): string {
  const lines = [`${plan.scenario.name}  ${plan.scenario.file}${plan.scenario.tags.length ? `  [${plan.scenario.tags.join(', ')}]` : ''}`];
  let phase: StepPhase | undefined;
  for (const step of plan.steps) {
    if (step.phase !== phase) {
      phase = step.phase;
      lines.push('', PHASE_TITLES[phase]);
    }
    const where = `${step.source.line}:${step.source.col}`;
    lines.push(`  ${String(step.index + 1).padStart(2)}. ${step.name}  (line ${where}, timeout ${step.timeout_ms} ms)`);
    for (const op of step.operations) {
      const [first, ...more] = describeOperation(op).split('\n');
      lines.push(`        ${first}`, ...more.map((l) => `          ${l}`));
    }
  }
  return `${lines.join('\n')}\n`;
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
      if (!call.decode && !call.expect && !call.artifact && call.body_if_failed === undefined && !call.empty_response_error && !call.marks_step) {
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
    case 'connect':
      return `playwright connectOverCDP ${op.ws_url}`;
    case 'disconnect':
      return 'playwright disconnect';
    case 'page': {
      const { op: _op, action, ...args } = op;
      return `page ${action} ${JSON.stringify(args)}`;
    }
    case 'attach_telemetry':
      return `GET ${op.path}?${Object.entries(op.query).map(([k, v]) => `${k}=${v}`).join('&')} (every page)\nattach console errors and failed requests to the steps they happened in`;
    case 'function':
      return `call function ${op.id} with the page, context, browser, session and variables${op.save ? ` -> {{ ${op.save} }}` : ''}`;
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

function followUps(call: ApiCall): string[] {
  const lines: string[] = [];
  if (call.body_if_failed !== undefined) lines.push(`if an earlier step failed, send ${JSON.stringify(call.body_if_failed)} instead`);
  if (call.empty_response_error) lines.push(`no body (204): fail with "${call.empty_response_error}"`);
  if (call.marks_step) lines.push("the step's offset in the replay is the response's offset_ms");
  if (call.artifact) lines.push(`write ${call.artifact.type} artifact ${call.artifact.file}`);
  if (call.expect?.length) lines.push(`expect ${call.expect.map(describeAssertion).join(', ')}`);
  if (call.save) lines.push(`save ${call.decode ? `${call.decode} result` : 'response'} as {{ ${call.save} }}`);
  return lines;
}

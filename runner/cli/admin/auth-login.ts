// `bcs auth login ID`: starts a login flow (or joins the one in progress) and prints each state it goes
// through until it ends. A flow that waits for a person prints the page where one can complete it and what
// it asks for, then keeps following. Exit 0 once the connection is logged in, 1 when the flow ended
// otherwise. With --json the states go to stderr and stdout gets the connection as it ended.
import type { LoginResponse, ManagedAuth } from '../../../src/api/index.js';
import { asksFor, connectionPath, flowError, followFlow, instant, isWaiting, type FlowState } from '../../exec/login-flow.js';
import type { Admin } from './output.js';

export async function followLogin(admin: Admin, id: string): Promise<number> {
  const out = (line: string) => (admin.json ? process.stderr : process.stdout).write(`${line}\n`);
  const path = connectionPath(id);
  const started = await admin.call<LoginResponse>('POST', `${path}/login`, { body: {} });
  out(`${started.flow_type} flow started for auth connection ${id} (it expires at ${instant(started.flow_expires_at)})`);

  let last = '';
  let hostedUrl = started.hosted_url;
  const final = await followFlow(
    id,
    { connection: (c) => admin.call<ManagedAuth>('GET', connectionPath(c)), events: (p) => admin.events<FlowState>(p) },
    (state) => {
      if (state.hosted_url) hostedUrl = state.hosted_url;
      const shown = `${state.flow_status} ${state.flow_step}`;
      // The stream repeats a state when it is resumed, or when only what the flow found changed.
      if (shown === last && !isWaiting(state)) return;
      last = shown;
      out(shown);
      if (isWaiting(state)) for (const line of waitingLines(state, hostedUrl, id)) out(`  ${line}`);
    },
  );

  const connection = await admin.call<ManagedAuth>('GET', path);
  out(`${final.flow_status}`);
  if (final.flow_status === 'SUCCESS') {
    admin.print(connection, (c) => `auth connection ${c.id} is ${c.status} (profile ${c.profile_name}); scenarios start logged in with browser: { auth: ${c.id} }`);
    return 0;
  }
  if (admin.json) admin.print(connection, () => []);
  process.stderr.write(`bcs: the login flow of auth connection ${id} ended ${final.flow_status}: ${flowError(final)}\n`);
  return 1;
}

/** Where a person completes the flow, and each thing it asks for (with the keys `POST .../submit` takes). */
function waitingLines(state: FlowState, hostedUrl: string | undefined, id: string): string[] {
  const lines = [hostedUrl ? `waiting for a person: complete the login at ${hostedUrl}` : 'waiting for a person (the service gave no page to complete it at)'];
  if (state.external_action_message) lines.push(state.external_action_message);
  if (state.fields?.length) {
    lines.push('it asks for:');
    for (const f of state.fields) lines.push(`  ${f.label ?? f.type} (${f.type}, field id ${f.id})`);
  } else {
    const asks = asksFor(state);
    if (asks) lines.push(`it asks for ${asks}`);
  }
  if (state.fields?.length && (state.choices?.length || state.mfa_options?.length || state.pending_sso_buttons?.length)) {
    lines.push(`and ${asksFor({ ...state, fields: null, discovered_fields: null })}`);
  }
  lines.push(`(or answer with POST ${connectionPath(id)}/submit)`);
  return lines;
}

// The hosted page of a login flow (`hosted_url`): where a person completes what the flow cannot do alone,
// in any browser, without an API key. The flow's handoff code in the URL is the credential: it opens this
// flow's page only, and only while the flow runs. Plain server-rendered HTML that refreshes itself while
// the flow works, and a form for what it asks (fields, choices, SSO buttons) when it waits.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { SubmitParams } from '../../api/schemas/auth-connections.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import type { ConnectionRow, FlowState } from '../store/auth-connections-repo.js';
import { content } from './responses.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks its own credential (a URL token) instead of an API key. */
    selfAuthenticated?: boolean;
  }
}

const params = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } } as const;
const query = { type: 'object', additionalProperties: false, required: ['code'], properties: { code: { type: 'string', minLength: 1, maxLength: 255 } } } as const;
const form = {
  type: 'object',
  maxProperties: 60,
  additionalProperties: { type: 'string', maxLength: 65_536 },
} as const;

type Req = { Params: { id: string }; Querystring: { code: string } };

export function registerHostedAuthPage(app: FastifyInstance, ctx: ServiceContext): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 256 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const path = '/auth/connections/:id/hosted';
    const config = { selfAuthenticated: true };

    scope.get<Req>(path, { config, schema: { params, querystring: query, response: content('The page where a person completes the login', 'text/html') } }, async (req, reply) =>
      page(reply, await flowOf(ctx, req.params.id, req.query.code)),
    );

    scope.post<Req & { Body: Record<string, string> }>(
      path,
      { config, schema: { params, querystring: query, body: form, response: content('Redirects back to the page (303)', 'text/html') } },
      async (req, reply) => {
        const { row } = await flowOf(ctx, req.params.id, req.query.code);
        await ctx.loginFlows.submit(row, submission(req.body));
        return reply.code(303).header('location', `${req.url}`).send();
      },
    );
  });
}

/** The connection whose running flow `code` opens; 401 otherwise, the same for every wrong guess. */
async function flowOf(ctx: ServiceContext, id: string, code: string): Promise<{ row: ConnectionRow; flow: FlowState }> {
  const row = await ctx.authConnections.get(id);
  const flow = row?.flow;
  const given = Buffer.from(code);
  const expected = Buffer.from(flow?.handoff_code ?? '');
  if (!row || !flow || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ServiceError(401, 'unauthorized', 'this login page link is not valid (or its flow was replaced by a newer one)');
  }
  return { row, flow };
}

/** The form's names: `field:<id>` for values, `choice`, `sso`. */
function submission(body: Record<string, string>): SubmitParams {
  const out: SubmitParams = {};
  const values = Object.entries(body).filter(([k]) => k.startsWith('field:'));
  if (values.length) out.field_values = Object.fromEntries(values.map(([k, v]) => [k.slice('field:'.length), v]));
  if (body.choice) out.selected_choice_id = body.choice;
  if (body.sso) out.sso_provider = body.sso;
  return out;
}

function page(reply: FastifyReply, { row, flow }: { row: ConnectionRow; flow: FlowState }): FastifyReply {
  const waiting = flow.status === 'IN_PROGRESS' && flow.step === 'AWAITING_INPUT';
  const working = flow.status === 'IN_PROGRESS' && !waiting;
  const body = waiting
    ? inputForm(flow)
    : working
      ? `<p role="status">Working: ${esc(flow.step.toLowerCase().replace(/_/g, ' '))}…</p>`
      : flow.status === 'SUCCESS'
        ? `<p role="status">Signed in to ${esc(row.domain)}. You can close this page.</p>`
        : `<p role="alert">The login ${esc(flow.status.toLowerCase())}: ${esc(flow.error_message ?? '')}</p>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
${working ? '<meta http-equiv="refresh" content="2">' : ''}<title>Sign in to ${esc(row.domain)}</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.8rem 0}
input{display:block;width:100%;padding:.4rem;font:inherit}button{margin:.3rem .3rem 0 0;padding:.4rem .8rem;font:inherit}</style></head>
<body><h1>Sign in to ${esc(row.domain)}</h1>${flow.website_error && waiting ? `<p role="alert">${esc(flow.website_error)}</p>` : ''}${body}</body></html>`;
  // The page holds a live credential in its URL: keep it out of caches and other sites' referrers.
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send(html);
}

function inputForm(flow: FlowState): string {
  const fields = (flow.fields ?? [])
    .map((f) => `<label>${esc(f.label ?? f.ref)}<input name="field:${esc(f.id)}" type="${f.type === 'password' ? 'password' : 'text'}"${f.type === 'totp_code' || f.type === 'code' ? ' autocomplete="one-time-code" inputmode="numeric"' : ''}${f.required ? ' required' : ''}></label>`)
    .join('');
  const choices = (flow.choices ?? []).map((c) => `<button name="choice" value="${esc(c.id)}" formnovalidate>${esc(c.label)}</button>`).join('');
  const sso = (flow.pending_sso_buttons ?? []).map((b) => `<button name="sso" value="${esc(b.provider)}" formnovalidate>${esc(b.label)}</button>`).join('');
  return `<form method="post">${fields}${fields ? '<button type="submit">Continue</button>' : ''}${choices || sso ? `<div>${choices}${sso}</div>` : ''}</form>`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

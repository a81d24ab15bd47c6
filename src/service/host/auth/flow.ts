// One login flow: in a real browser with the connection's profile, it opens the login page and, page after
// page, reads what the site asks for (discover.ts), answers from the credential (identifier, password, a TOTP
// code from its secret, the matching account, its SSO provider) and submits, until the site lets it in. What
// it cannot answer it asks for (AWAITING_INPUT) and waits for `submit`. The flow never decides on a site's
// behalf that a wrong password is right: a site's error after a submit fails the flow with that error.
import type { Page } from 'playwright-core';
import type { AuthChoice, AuthField, DiscoveredField, MfaOption, SsoButton, SubmitParams } from '../../../api/schemas/auth-connections.js';
import { totpCodeAt } from '../credentials/index.js';
import { discoverInPage, type PageChoice, type PageField, type PageForm } from './discover.js';

/** What the flow may answer with. */
export interface LoginSecrets {
  values: Record<string, string>;
  totp: string | null;
  sso_provider: string | null;
}

/** What the flow asks for while it waits. */
export interface PendingInput {
  discovered_fields: DiscoveredField[] | null;
  fields: AuthField[] | null;
  choices: AuthChoice[] | null;
  mfa_options: MfaOption[] | null;
  pending_sso_buttons: SsoButton[] | null;
}

export interface FlowHooks {
  /** The flow moved to a step; `pending` while it awaits input. Rejects when the flow was stopped. */
  step(step: 'DISCOVERING' | 'AWAITING_INPUT' | 'SUBMITTING', pending?: PendingInput): Promise<void>;
  /** Resolves with what a person submitted; rejects when the flow is cancelled or expires. */
  input(): Promise<SubmitParams>;
  /** Whether the flow may be on this page's host (the connection's domain, its allowed domains, common IdPs). */
  allowed(url: string): boolean;
  now(): Date;
}

export type FlowOutcome =
  | { ok: true; postLoginUrl: string; submitted: Record<string, string> }
  | { ok: false; code: string; message: string; websiteError?: string };

const MAX_PAGES = 15;
const SETTLE_MS = 15_000;
/** How long one fill or click may wait for its element. */
const ACTION_MS = 10_000;
/** How often an action may find the page changed under it before the flow gives up. */
const MAX_STALE = 3;
/** How long an action may take to replace the document; a page that updates in place is read after this. */
const NEXT_DOCUMENT_MS = 3_000;
const MARK = '__bcsLoginFlowMark';

/** The flow's own error: a failure with a code the connection shows. */
export class FlowFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly websiteError?: string,
  ) {
    super(message);
  }
}

export async function runLoginFlow(page: Page, loginUrl: string, secrets: LoginSecrets, hooks: FlowHooks): Promise<FlowOutcome> {
  // What was typed in by a person: reused on later pages (a username asked once fills the next page too)
  // and, with save_credentials, kept.
  const submitted: Record<string, string> = {};
  const values = (): Record<string, string> => ({ ...secrets.values, ...submitted });
  let lastSubmit: string | null = null;
  let stale = 0;
  try {
    await hooks.step('DISCOVERING');
    await page.goto(loginUrl, { waitUntil: 'domcontentloaded', timeout: SETTLE_MS });
    for (let n = 0; n < MAX_PAGES; n++) {
      await settle(page);
      const form = await discover(page);
      const signature = formSignature(form);
      if (!hooks.allowed(form.url)) throw new FlowFailure('domain_not_allowed', `the login went to ${new URL(form.url).host}, which is not the connection's domain or one of its allowed_domains`);
      if (isSignedIn(form, loginUrl)) return { ok: true, postLoginUrl: form.url, submitted };
      if (form.error && lastSubmit === signature) {
        throw new FlowFailure('invalid_credentials', `the site refused the login: ${form.error}`, form.error);
      }
      await markDocument(page);
      let action: 'clicked' | 'submitted';
      try {
        action = await nextAction(page, form, values(), secrets, hooks, submitted);
      } catch (err) {
        // The page changed under the action (a late navigation, a re-render): read it again.
        if (!(err instanceof Error && err.name === 'TimeoutError') || ++stale > MAX_STALE) throw err;
        continue;
      }
      await hooks.step('SUBMITTING');
      lastSubmit = action === 'submitted' ? signature : null;
      await nextDocument(page);
    }
    throw new FlowFailure('too_many_steps', `the login did not finish within ${MAX_PAGES} pages`);
  } catch (err) {
    if (err instanceof FlowFailure) return { ok: false, code: err.code, message: err.message, websiteError: err.websiteError };
    throw err;
  }
}

/** Does one thing on the page (choose, click SSO, fill and submit), asking for input when it has to. */
async function nextAction(
  page: Page,
  form: PageForm,
  known: Record<string, string>,
  secrets: LoginSecrets,
  hooks: FlowHooks,
  submitted: Record<string, string>,
): Promise<'clicked' | 'submitted'> {
  const identifier = known.username ?? known.email ?? known.login ?? known.identifier;
  const accounts = form.choices.filter((c) => c.kind === 'account');
  const mfa = form.choices.filter((c) => c.kind === 'mfa');
  if (mfa.length) {
    const totp = secrets.totp ? mfa.find((c) => c.mfaType === 'totp') : undefined;
    const chosen = totp ?? (await ask(form, hooks, submitted)).choice;
    if (chosen) return click(page, chosen.selector);
  }
  if (accounts.length && form.fields.length === 0) {
    const mine = identifier ? accounts.find((c) => c.label.toLowerCase().includes(identifier.toLowerCase())) : undefined;
    const other = form.choices.find((c) => c.kind === 'other');
    const chosen = mine ?? (identifier && other) ?? (await ask(form, hooks, submitted)).choice;
    if (chosen) return click(page, chosen.selector);
  }
  const sso = secrets.sso_provider ? form.sso.find((b) => b.provider.includes(secrets.sso_provider!.toLowerCase())) : undefined;
  if (sso) return click(page, sso.selector);

  const loginFields = form.fields;
  if (!loginFields.length) {
    // Nothing to fill and nothing we may choose: a person picks (an SSO button, a sign-in option).
    const answer = await ask(form, hooks, submitted);
    if (answer.choice) return click(page, answer.choice.selector);
    if (answer.sso) return click(page, answer.sso);
    throw new FlowFailure('no_login_form', `no login form found on ${form.url}`);
  }
  let fills = loginFields.map((f) => ({ field: f, value: valueFor(f, known, secrets, hooks) }));
  if (fills.some((f) => f.value === undefined && (f.field.required || f.field.kind !== 'text'))) {
    const answer = await ask(form, hooks, submitted);
    if (answer.choice) return click(page, answer.choice.selector);
    if (answer.sso) return click(page, answer.sso);
    const now = { ...known, ...submitted };
    fills = loginFields.map((f) => ({ field: f, value: valueFor(f, now, secrets, hooks) }));
    const missing = fills.filter((f) => f.value === undefined && f.field.required).map((f) => f.field.label);
    if (missing.length) throw new FlowFailure('missing_input', `no value was given for ${missing.join(', ')}`);
  }
  for (const { field, value } of fills) if (value !== undefined) await page.fill(field.selector, value, { timeout: ACTION_MS });
  if (form.submit) await page.click(form.submit.selector, { noWaitAfter: true, timeout: ACTION_MS });
  else await page.press(loginFields.at(-1)!.selector, 'Enter', { noWaitAfter: true, timeout: ACTION_MS });
  return 'submitted';
}

/** The value for a field from what is known: identifier, password, a fresh TOTP code, or a value by name. */
function valueFor(field: PageField, known: Record<string, string>, secrets: LoginSecrets, hooks: FlowHooks): string | undefined {
  const byName = known[field.name] ?? known[field.selector] ?? known[field.label];
  switch (field.kind) {
    case 'identifier':
      return byName ?? known.username ?? known.email ?? known.login ?? known.identifier;
    case 'password':
      return byName ?? known.password;
    case 'code':
      return byName ?? known.code ?? known.totp_code ?? (secrets.totp ? totpCodeAt(secrets.totp, hooks.now()).code : undefined);
    default:
      return byName;
  }
}

interface Answer {
  choice?: PageChoice;
  sso?: string;
}

/** Publishes what the page asks for, waits for a submit, and keeps its values. */
async function ask(form: PageForm, hooks: FlowHooks, submitted: Record<string, string>): Promise<Answer> {
  const pending = pendingOf(form);
  // Waiting before the state says so: a submit that follows the state always finds the flow waiting.
  const input = hooks.input();
  input.catch(() => undefined);
  await hooks.step('AWAITING_INPUT', pending);
  const body = await input;
  const given = { ...body.fields, ...body.field_values };
  for (const [key, value] of Object.entries(given)) {
    // Keyed by a field's id, name, selector or type; kept under what the field is (username, password,
    // code) so later pages and a saved credential use one name for it.
    const field = form.fields.find((f, i) => key === fieldId(i) || key === f.name || key === f.selector || key === f.kind || key === wireType(f));
    submitted[field ? canonicalKey(field) : key] = value;
  }
  const choiceId = body.selected_choice_id ?? body.mfa_option_id ?? body.sign_in_option_id;
  // mfa_options have no ids on the wire: an option is named by its type (`sms`) or label.
  const choice =
    choiceId !== undefined ? form.choices.find((c, i) => choiceId === choiceIdOf(i) || choiceId === c.label || (c.mfaType !== undefined && choiceId === c.mfaType)) : undefined;
  if (choiceId !== undefined && !choice) throw new FlowFailure('invalid_choice', `no choice '${choiceId}' on this page`);
  const sso = body.sso_button_selector ?? (body.sso_provider ? form.sso.find((b) => b.provider.includes(body.sso_provider!.toLowerCase()))?.selector : undefined);
  return { choice, sso };
}

function pendingOf(form: PageForm): PendingInput {
  const fields = form.fields;
  return {
    discovered_fields: fields.map((f) => ({
      label: f.label,
      name: f.name,
      selector: f.selector,
      type: f.kind === 'code' ? 'code' : (['text', 'email', 'password', 'tel', 'number', 'url'].includes(f.inputType) ? f.inputType : 'text') as DiscoveredField['type'],
      placeholder: f.placeholder || undefined,
      required: f.required,
      linked_mfa_type: f.kind === 'code' ? 'totp' : null,
    })),
    fields: fields.map((f, i) => ({ id: fieldId(i), ref: f.name, type: wireType(f), label: f.label, observed_selector: f.selector, required: f.required || f.kind !== 'text' })),
    choices: form.choices.length
      ? form.choices.map((c, i) => ({ id: choiceIdOf(i), label: c.label, type: c.kind === 'mfa' ? 'mfa_method' : c.kind === 'account' ? 'account' : 'other', observed_selector: c.selector }))
      : null,
    mfa_options: form.choices.some((c) => c.kind === 'mfa') ? form.choices.filter((c) => c.mfaType).map((c) => ({ label: c.label, type: c.mfaType! })) : null,
    pending_sso_buttons: form.sso.length ? form.sso.map((b) => ({ label: b.label, provider: b.provider, selector: b.selector })) : null,
  };
}

const fieldId = (i: number) => `field_${i + 1}`;
const canonicalKey = (f: PageField): string => ({ identifier: 'username', password: 'password', code: 'code', text: f.name })[f.kind];
const choiceIdOf = (i: number) => `choice_${i + 1}`;
const wireType = (f: PageField): AuthField['type'] => (f.kind === 'code' ? 'totp_code' : f.kind);

async function click(page: Page, selector: string): Promise<'clicked'> {
  await page.click(selector, { noWaitAfter: true, timeout: ACTION_MS });
  return 'clicked';
}

/**
 * A health check: opens `url` (the page the last login reached) and reads whether the site still lets the
 * profile in, or sends it to a login page.
 */
export async function probeSignedIn(page: Page, url: string, loginUrl: string): Promise<{ signedIn: boolean; url: string }> {
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: SETTLE_MS });
  await settle(page);
  const form = await discover(page);
  return { signedIn: isSignedIn(form, loginUrl), url: form.url };
}

/** Signed in: the page asks for nothing a login asks for, and it is not the login page itself. */
function isSignedIn(form: PageForm, loginUrl: string): boolean {
  const asksToLogIn = form.fields.some((f) => f.kind !== 'text') || form.choices.length > 0 || form.sso.length > 0;
  return !asksToLogIn && stripQuery(form.url) !== stripQuery(loginUrl);
}

const stripQuery = (url: string) => url.replace(/[?#].*$/, '');
const formSignature = (form: PageForm) => `${stripQuery(form.url)} ${form.fields.map((f) => f.selector).join(',')}`;

/** Marks the current document, so `nextDocument` can tell when an action replaced it. */
async function markDocument(page: Page): Promise<void> {
  await page.evaluate(`window.${MARK} = true`).catch(() => undefined);
}

/** Waits until the marked document is gone (a navigation), or a moment for pages that change in place. */
async function nextDocument(page: Page): Promise<void> {
  await page.waitForFunction(`!window.${MARK}`, undefined, { timeout: NEXT_DOCUMENT_MS, polling: 100 }).catch(() => undefined);
}

/** Waits for the page to stop navigating: load, then a quiet moment for scripts that render forms. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('load', { timeout: SETTLE_MS }).catch(() => undefined);
  await page.waitForLoadState('networkidle', { timeout: 2_000 }).catch(() => undefined);
}

/** What the page asks for now. */
async function discover(page: Page): Promise<PageForm> {
  // Bundlers may wrap named functions in a `__name` helper that does not exist in the page.
  const source = `(() => { const __name = (f) => f; return (${discoverInPage.toString()})(); })()`;
  for (let attempt = 0; ; attempt++) {
    try {
      return (await page.evaluate(source)) as PageForm;
    } catch (err) {
      // A navigation under way destroys the context the script ran in: read the next page instead.
      if (attempt >= 5 || !/context was destroyed|navigation/i.test((err as Error).message)) throw err;
      await settle(page);
    }
  }
}

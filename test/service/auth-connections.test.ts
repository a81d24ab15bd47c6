// Managed auth through the hosted SDK, unchanged, against local test sites in real Chromium: each kind of
// login page (one form, username then password, TOTP, an account chooser, SSO to a second origin) is
// logged into from a credential; what the flow cannot fill it asks for; the profile it saves starts the
// next browser logged in.
import Kernel from '@onkernel/sdk';
import type { ManagedAuth } from '@onkernel/sdk/resources/auth/connections';
import { Secret, TOTP } from 'otpauth';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_CREDENTIALS, startLoginSite, type LoginSite, type LoginVariant } from '../helpers/login-site.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const USERS = { 'ada@example.test': { password: 'lovelace-1815' }, 'grace@example.test': { password: 'hopper-1906', totpSecret: TOTP_SECRET } };

let svc: TestService;
let kernel: Kernel;
const sites: LoginSite[] = [];

beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});

afterAll(async () => {
  await svc?.close();
  await Promise.all(sites.map((s) => s.close()));
});

async function site(variant: LoginVariant): Promise<LoginSite> {
  const s = await startLoginSite({ variant, users: USERS });
  sites.push(s);
  return s;
}

/** Follows the connection's flow to its end and answers the last state. */
async function settled(id: string): Promise<ManagedAuth> {
  const stream = await kernel.auth.connections.follow(id);
  const states: string[] = [];
  for await (const event of stream) {
    if (event.event === 'managed_auth_state') {
      states.push(`${event.flow_status}/${event.flow_step}`);
      if (['SUCCESS', 'FAILED', 'EXPIRED', 'CANCELED'].includes(event.flow_status)) break;
    }
  }
  expect(states.length).toBeGreaterThan(0);
  return kernel.auth.connections.retrieve(id);
}

/** Waits until the flow asks for input. */
async function awaitingInput(id: string): Promise<ManagedAuth> {
  return eventually(async () => {
    const c = await kernel.auth.connections.retrieve(id);
    if (c.flow_status === 'FAILED') throw new Error(`${c.error_code}: ${c.error_message}`);
    return c.flow_step === 'AWAITING_INPUT' ? c : undefined;
  }, 60_000, 200);
}

/** Opens the account page in a new browser started from the profile: logged in or not. */
async function welcomeWithProfile(profile: string, s: LoginSite): Promise<string | null> {
  const b = await kernel.browsers.create({ profile: { name: profile } });
  const browser = await chromium.connectOverCDP(b.cdp_ws_url);
  try {
    const page = browser.contexts()[0]!.pages()[0] ?? (await browser.contexts()[0]!.newPage());
    await page.goto(s.accountUrl);
    return page.url().startsWith(s.accountUrl) ? await page.locator('h1').textContent() : null;
  } finally {
    await browser.close();
    await kernel.browsers.deleteByID(b.session_id);
  }
}

describe('auth connections', () => {
  it('creates with the profile made when missing, lists with filters, updates, refuses the same pair and a bad credential', async () => {
    await kernel.credentials.create({ domain: '127.0.0.1', name: 'crud-cred', values: { username: 'u', password: 'p' } });
    const c = await kernel.auth.connections.create({ domain: 'crud.example.test', profile_name: 'crud-profile', credential: { name: 'crud-cred' } });
    expect(c).toMatchObject({
      domain: 'crud.example.test',
      profile_name: 'crud-profile',
      status: 'NEEDS_AUTH',
      save_credentials: true,
      health_checks: true,
      health_check_interval: 3600,
      credential: { name: 'crud-cred' },
      can_reauth: false,
      can_reauth_reason: 'no_prior_successful_login',
      flow_status: null,
    });
    expect((await kernel.profiles.retrieve('crud-profile')).name).toBe('crud-profile');
    const dup = await svc.call('POST', '/auth/connections', { body: { domain: 'crud.example.test', profile_name: 'crud-profile' } });
    expect(dup.status).toBe(409);
    const badCred = await svc.call('POST', '/auth/connections', { body: { domain: 'x.test', profile_name: 'p2', credential: { name: 'nope' } } });
    expect(badCred.status).toBe(404);
    const both = await svc.call('POST', '/auth/connections', { body: { domain: 'x.test', profile_name: 'p2', credential: { name: 'crud-cred', provider: 'x' } } });
    expect(both.status).toBe(400);
    expect(both.body.details[0].field).toBe('body.credential');
    const interval = await svc.call('POST', '/auth/connections', { body: { domain: 'x.test', profile_name: 'p2', health_check_interval: 10 } });
    expect(interval.status).toBe(400);

    const updated = await kernel.auth.connections.update(c.id, { auto_reauth: true, health_check_interval: 7200, allowed_domains: ['IdP.example.test'] });
    expect(updated).toMatchObject({ auto_reauth: true, health_check_interval: 7200, allowed_domains: ['idp.example.test'] });
    expect((await kernel.auth.connections.list({ domain: 'crud.example.test' })).getPaginatedItems().map((x) => x.id)).toEqual([c.id]);
    expect((await kernel.auth.connections.list({ profile_name: 'nobody' })).getPaginatedItems()).toEqual([]);
    expect((await svc.call('POST', `/auth/connections/${c.id}/submit`, { body: { field_values: { a: 'b' } } })).status).toBe(409);
    expect((await svc.call('GET', `/auth/connections/${c.id}/events`)).status).toBe(409);
  });

  it('keeps a proxy it uses from being deleted', async () => {
    const proxy = await kernel.proxies.create({ type: 'custom', name: 'auth-proxy', config: { host: '127.0.0.1', port: 9 } });
    const c = await kernel.auth.connections.create({ domain: 'proxied.example.test', profile_name: 'proxied', proxy: { id: proxy.id } });
    expect(c.proxy_id).toBe(proxy.id);
    const refused = await svc.call('DELETE', `/proxies/${proxy.id}`);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('resource_in_use');
    await kernel.auth.connections.delete(c.id);
    expect((await svc.call('DELETE', `/proxies/${proxy.id}`)).status).toBe(204);
  });

  it.each([
    ['basic', { username: 'ada@example.test', password: 'lovelace-1815' }, {}],
    ['two-step', { username: 'ada@example.test', password: 'lovelace-1815' }, {}],
    ['totp', { username: 'grace@example.test', password: 'hopper-1906' }, { totp_secret: TOTP_SECRET }],
    ['chooser', { email: 'grace@example.test', password: 'hopper-1906' }, {}],
    ['sso', { email: 'ada@example.test', password: 'lovelace-1815' }, { sso_provider: 'exampleid' }],
  ] as const)('logs in to a %s login page from a credential and saves the profile', async (variant, values, extra) => {
    const s = await site(variant);
    await kernel.credentials.create({ domain: '127.0.0.1', name: `cred-${variant}`, values, ...extra });
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: `auth-${variant}`, login_url: s.loginUrl, credential: { name: `cred-${variant}` } });
    const started = await kernel.auth.connections.login(c.id);
    expect(started).toMatchObject({ flow_type: 'LOGIN' });
    expect(started.hosted_url).toContain(c.id);
    const done = await settled(c.id);
    expect(done, JSON.stringify(done)).toMatchObject({ status: 'AUTHENTICATED', flow_status: 'SUCCESS', flow_step: 'COMPLETED', post_login_url: s.accountUrl, can_reauth: true });
    expect(s.logins.length).toBe(1);
    const timeline = (await kernel.auth.connections.timeline(c.id)).getPaginatedItems();
    expect(timeline[0]).toMatchObject({ type: 'login', status: 'SUCCESS', step: 'COMPLETED' });
    // A new browser from the profile is already signed in.
    expect(await welcomeWithProfile(`auth-${variant}`, s)).toMatch(/^Welcome, /);
  });

  it('asks for what it cannot fill, takes it through submit, and keeps it as a credential', async () => {
    const s = await site('basic');
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'asks', login_url: s.loginUrl });
    await kernel.auth.connections.login(c.id);
    const waiting = await awaitingInput(c.id);
    expect(waiting.flow_status).toBe('IN_PROGRESS');
    expect(waiting.fields!.map((f) => f.type).sort()).toEqual(['identifier', 'password']);
    expect(waiting.discovered_fields!.map((f) => f.selector).sort()).toEqual(['#password', '#username']);
    const identifier = waiting.fields!.find((f) => f.type === 'identifier')!;
    expect((await kernel.auth.connections.submit(c.id, { field_values: { [identifier.id]: 'ada@example.test', password: 'lovelace-1815' } })).accepted).toBe(true);
    const done = await settled(c.id);
    expect(done).toMatchObject({ status: 'AUTHENTICATED', credential: { name: '127.0.0.1-asks' } });
    const saved = await kernel.credentials.retrieve('127.0.0.1-asks');
    expect(saved.value_keys!.sort()).toEqual(['password', 'username']);
  });

  it('chooses the authenticator on a verification-method page with a TOTP secret, and asks which one without', async () => {
    const s = await startLoginSite({ variant: 'totp', users: USERS, mfaChoice: true });
    sites.push(s);
    await kernel.credentials.create({ domain: '127.0.0.1', name: 'mfa-auto', values: { username: 'grace@example.test', password: 'hopper-1906' }, totp_secret: TOTP_SECRET });
    const auto = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'mfa-auto', login_url: s.loginUrl, credential: { name: 'mfa-auto' } });
    await kernel.auth.connections.login(auto.id);
    expect(await settled(auto.id)).toMatchObject({ status: 'AUTHENTICATED' });
    expect(s.smsCodes).toEqual([]);

    await kernel.credentials.create({ domain: '127.0.0.1', name: 'mfa-ask', values: { username: 'grace@example.test', password: 'hopper-1906' } });
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'mfa-ask', login_url: s.loginUrl, credential: { name: 'mfa-ask' } });
    await kernel.auth.connections.login(c.id);
    const choosing = await awaitingInput(c.id);
    // While it waits, its browser can be watched (or helped) through the live view; the flow's end takes it away.
    expect(choosing.live_view_url).toBe(`${svc.baseUrl}/live/${choosing.browser_session_id}?token=${new URL(choosing.live_view_url!).searchParams.get('token')}`);
    expect(new URL(choosing.live_view_url!).searchParams.get('token')).toMatch(/^i\./);
    expect(choosing.mfa_options).toEqual([
      { label: 'Authenticator app', type: 'totp' },
      { label: 'Text message to •••• 42', type: 'sms' },
    ]);
    expect(choosing.choices!.map((x) => x.type)).toEqual(['mfa_method', 'mfa_method']);
    await kernel.auth.connections.submit(c.id, { mfa_option_id: 'sms' });
    const code = await eventually(async () => {
      const x = await kernel.auth.connections.retrieve(c.id);
      return x.flow_step === 'AWAITING_INPUT' && x.fields?.length ? x : undefined;
    }, 60_000, 200);
    expect(code.fields!.map((f) => f.label)).toEqual(['Verification code']);
    await kernel.auth.connections.submit(c.id, { field_values: { code: s.smsCodes.at(-1)! } });
    expect(await settled(c.id)).toMatchObject({ status: 'AUTHENTICATED', flow_status: 'SUCCESS', live_view_url: null });
    // The one-time code is not kept in the credential.
    expect((await kernel.credentials.retrieve('mfa-ask')).value_keys!.sort()).toEqual(['password', 'username']);
  });

  it('records a replay of the login when asked, and names it in the timeline', async () => {
    const s = await site('basic');
    await kernel.credentials.create({ domain: '127.0.0.1', name: 'recorded-cred', values: { username: 'ada@example.test', password: 'lovelace-1815' } });
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'recorded', login_url: s.loginUrl, credential: { name: 'recorded-cred' } });
    await kernel.auth.connections.login(c.id, { record_session: true });
    const done = await settled(c.id);
    expect(done.status).toBe('AUTHENTICATED');
    const entry = (await kernel.auth.connections.timeline(c.id)).getPaginatedItems()[0]!;
    expect(entry.replay_id).toBeTruthy();
    const replays = await svc.call('GET', `/browsers/${entry.browser_session_id}/replays`);
    expect(replays.body.map((r: { replay_id: string }) => r.replay_id)).toContain(entry.replay_id);
  });

  it('fails with the provider\'s reason when a provider credential cannot be read', async () => {
    await kernel.credentialProviders.create({ name: 'auth-op', token: 'ops_not-a-real-token', provider_type: 'onepassword' });
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'from-provider', login_url: 'http://127.0.0.1:9/login', credential: { provider: 'auth-op', auto: true } });
    expect(c.can_reauth_reason).toBe('external_credential');
    await kernel.auth.connections.login(c.id);
    const done = await settled(c.id);
    expect(done).toMatchObject({ flow_status: 'FAILED', error_code: 'provider_unavailable' });
    expect(done.error_message).toMatch(/auth-op.*service account token/i);
  });

  it('fails with the site\'s own error on a wrong password', async () => {
    const s = await site('basic');
    await kernel.credentials.create({ domain: '127.0.0.1', name: 'wrong-cred', values: { username: 'ada@example.test', password: 'not-it' } });
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'wrong', login_url: s.loginUrl, credential: { name: 'wrong-cred' } });
    await kernel.auth.connections.login(c.id);
    const done = await settled(c.id);
    expect(done).toMatchObject({ status: 'NEEDS_AUTH', flow_status: 'FAILED', error_code: 'invalid_credentials', website_error: INVALID_CREDENTIALS });
  });

  it('runs one flow for concurrent starts; cancels a flow awaiting input when the connection is deleted, ending its browser', async () => {
    const s = await site('two-step');
    // The seed's nested browser settings: stealth off for this connection's browsers.
    const c = await svc.call('POST', '/auth/connections', { body: { domain: '127.0.0.1', profile_name: 'cancelled', login_url: s.loginUrl, browser: { stealth: false } } }).then((r) => r.body as ManagedAuth);
    // Concurrent starts of one connection's login run one flow: each is answered with it.
    const starts = await Promise.all([1, 2, 3].map(() => kernel.auth.connections.login(c.id)));
    expect(new Set(starts.map((started) => started.hosted_url)).size).toBe(1);
    const waiting = await awaitingInput(c.id);
    const session = waiting.browser_session_id!;
    expect(await kernel.browsers.retrieve(session)).toMatchObject({ session_id: session, stealth: false });
    await kernel.auth.connections.delete(c.id);
    await expect(kernel.auth.connections.retrieve(c.id)).rejects.toMatchObject({ status: 404 });
    const ended = await svc.call('GET', `/browsers/${session}?include_deleted=true`);
    expect(ended.body.deleted_at).toBeTruthy();
  });
});

describe('the hosted page', () => {
  it('lets a person in a real browser complete what the flow asks for', async () => {
    const s = await site('totp');
    const c = await kernel.auth.connections.create({ domain: '127.0.0.1', profile_name: 'hosted', login_url: s.loginUrl, save_credentials: false });
    const started = await kernel.auth.connections.login(c.id);
    await awaitingInput(c.id);
    const browser = await chromium.launch({ executablePath: svc.chromium.path });
    try {
      const page = await browser.newPage();
      await page.goto(started.hosted_url);
      await page.getByLabel('Username or email address').fill('grace@example.test');
      await page.getByLabel('Password').fill('hopper-1906');
      await page.getByRole('button', { name: 'Continue' }).click();
      // The flow moves on to the site's code page and asks again, on the same page.
      await page.getByLabel('Authentication code').waitFor({ timeout: 60_000 });
      await page.getByLabel('Authentication code').fill(new TOTP({ secret: Secret.fromBase32(TOTP_SECRET) }).generate());
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByText('Signed in to 127.0.0.1').waitFor({ timeout: 60_000 });
      // A wrong code opens nothing.
      expect((await fetch(started.hosted_url.replace(/code=[^&]+/, 'code=guess'))).status).toBe(401);
    } finally {
      await browser.close();
    }
    expect(await kernel.auth.connections.retrieve(c.id)).toMatchObject({ status: 'AUTHENTICATED', flow_status: 'SUCCESS' });
    expect((await kernel.credentials.list({ query: 'hosted' })).getPaginatedItems()).toEqual([]);
  });
});

describe('health checks', () => {
  it('notice a logged-out profile and log in again with auto_reauth', async () => {
    let offsetMs = 0;
    const checked = await startTestService({ now: () => new Date(Date.now() + offsetMs), authHealthTickMs: 200 });
    const k = new Kernel({ apiKey: checked.apiKey, baseURL: checked.baseUrl, maxRetries: 0 });
    try {
      const s = await site('basic');
      await k.credentials.create({ domain: '127.0.0.1', name: 'hc', values: { username: 'ada@example.test', password: 'lovelace-1815' } });
      const c = await k.auth.connections.create({ domain: '127.0.0.1', profile_name: 'checked', login_url: s.loginUrl, credential: { name: 'hc' }, auto_reauth: true, health_check_interval: 300 });
      await k.auth.connections.login(c.id);
      await eventually(async () => ((await k.auth.connections.retrieve(c.id)).status === 'AUTHENTICATED' ? true : undefined), 90_000, 200);
      // Still signed in at the first check.
      offsetMs += 301_000;
      await eventually(async () => ((await k.auth.connections.timeline(c.id, { type: 'health_check' })).getPaginatedItems()[0]?.status === 'AUTHENTICATED' ? true : undefined), 90_000, 200);
      expect(s.logins.length).toBe(1);
      // The site logs everyone out; the next check notices and the re-login signs in again.
      s.expireSessions();
      offsetMs += 301_000;
      const reauth = await eventually(async () => {
        const events = (await k.auth.connections.timeline(c.id)).getPaginatedItems();
        return events.find((e) => e.type === 'reauth' && e.status === 'SUCCESS') ? events : undefined;
      }, 120_000, 200);
      expect(reauth.find((e) => e.type === 'health_check' && e.status === 'NEEDS_AUTH')).toMatchObject({ previous_status: 'AUTHENTICATED' });
      expect(await k.auth.connections.retrieve(c.id)).toMatchObject({ status: 'AUTHENTICATED', flow_type: 'REAUTH', flow_status: 'SUCCESS' });
      expect(s.logins.length).toBe(2);
    } finally {
      await checked.close();
    }
  });
});

describe('a login flow nobody answers', () => {
  it('expires at flow_expires_at and ends its browser', async () => {
    const short = await startTestService({ loginFlowTtlMs: 4_000 });
    const k = new Kernel({ apiKey: short.apiKey, baseURL: short.baseUrl, maxRetries: 0 });
    try {
      const s = await site('basic');
      const c = await k.auth.connections.create({ domain: '127.0.0.1', profile_name: 'expires', login_url: s.loginUrl });
      const started = await k.auth.connections.login(c.id);
      expect(Date.parse(started.flow_expires_at) - Date.now()).toBeLessThanOrEqual(4_000);
      const done = await eventually(async () => {
        const x = await k.auth.connections.retrieve(c.id);
        return x.flow_status !== 'IN_PROGRESS' ? x : undefined;
      }, 60_000, 200);
      expect(done).toMatchObject({ flow_status: 'EXPIRED', error_code: 'flow_expired', status: 'NEEDS_AUTH' });
      expect((await k.auth.connections.timeline(c.id)).getPaginatedItems()[0]).toMatchObject({ status: 'EXPIRED', step: 'EXPIRED' });
      await eventually(async () => ((await k.browsers.list()).getPaginatedItems().length === 0 ? true : undefined), 30_000);
    } finally {
      await short.close();
    }
  });
});

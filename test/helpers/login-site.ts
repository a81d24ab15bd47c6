// A local website with a real login, in the shapes managed login meets in the wild (one page, two steps,
// TOTP, an account chooser, SSO through a second origin), so the service can be tested against real forms
// in real Chromium without touching the network. Plain node:http: nothing here should hide what a browser sees.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';

export type LoginVariant = 'basic' | 'two-step' | 'totp' | 'chooser' | 'sso';

export interface LoginSiteUser {
  password: string;
  /** Base32; when set on the 'totp' variant the user must also enter an authenticator code. */
  totpSecret?: string;
}

export interface LoginSiteOptions {
  variant: LoginVariant;
  users: Record<string, LoginSiteUser>;
  /** Accounts the 'chooser' variant offers (default: every user). */
  accounts?: string[];
  /** 'totp' only: ask how to verify (authenticator app or a text message) before the code. */
  mfaChoice?: boolean;
}

export interface LoginSite {
  variant: LoginVariant;
  /** http://127.0.0.1:PORT */
  origin: string;
  loginUrl: string;
  accountUrl: string;
  /** The identity provider's origin ('sso' only). */
  idpOrigin?: string;
  /** The session cookie's name: `<variant>_session_<port>`. */
  cookieName: string;
  /** Invalidates every session (and pending MFA or SSO step), so the next /account visit is logged out. */
  expireSessions(): void;
  /** Successful logins, oldest first. */
  logins: Array<{ user: string; at: number }>;
  /** POSTs received by the site and its identity provider. */
  attempts: number;
  /** Codes "sent by text message" (the 'totp' variant with `mfaChoice`), newest last. */
  smsCodes: string[];
  close(): Promise<void>;
}

export const INVALID_CREDENTIALS = 'Invalid username or password';
export const INVALID_CODE = 'Invalid authentication code';

const BRAND: Record<LoginVariant, string> = { basic: 'Acme', 'two-step': 'Northwind', totp: 'Forge', chooser: 'Pinecone Mail', sso: 'Orbit' };

interface Ctx {
  path: string;
  query: URLSearchParams;
  form: URLSearchParams;
  cookies: Record<string, string>;
  /** Where to land after login, from the query or the form; only same-site paths. */
  next: string;
}

interface Reply { status: number; body?: string; location?: string; setCookies?: string[] }

type Routes = Record<string, (ctx: Ctx) => Reply>;

const show = (body: string, status = 200): Reply => ({ status, body });
const go = (location: string, setCookies: string[] = []): Reply => ({ status: 302, location, setCookies });
const token = (): string => randomBytes(18).toString('base64url');

export async function startLoginSite(opts: LoginSiteOptions): Promise<LoginSite> {
  const { variant, users } = opts;
  const brand = BRAND[variant];
  const server = createServer();
  const port = await listen(server);
  const origin = `http://127.0.0.1:${port}`;
  const cookieName = `${variant}_session_${port}`;
  const mfaCookie = `${variant}_mfa_${port}`;

  const sessions = new Map<string, string>();
  const pendingMfa = new Map<string, { user: string; next: string }>();
  const ssoStates = new Map<string, string>();
  const ssoCodes = new Map<string, string>();
  let idp: Server | undefined;

  const site: LoginSite = {
    variant,
    origin,
    loginUrl: `${origin}/login`,
    accountUrl: `${origin}/account`,
    cookieName,
    logins: [],
    attempts: 0,
    smsCodes: [],
    expireSessions() {
      sessions.clear();
      pendingMfa.clear();
      ssoStates.clear();
      ssoCodes.clear();
    },
    close: async () => {
      await Promise.all([closeServer(server), idp && closeServer(idp)]);
    },
  };

  const passwordOk = (user: string, password: string): boolean => Object.hasOwn(users, user) && users[user]!.password === password;

  const signIn = (user: string, next: string, extraCookies: string[] = []): Reply => {
    const t = token();
    sessions.set(t, user);
    site.logins.push({ user, at: Date.now() });
    // Persistent (Max-Age), so a saved browser profile keeps the login across restarts.
    return go(next, [`${cookieName}=${t}; Max-Age=86400; Path=/; HttpOnly; SameSite=Lax`, ...extraCookies]);
  };

  // Every credential form: sign in, or show the same page again with the error (status 200, as real sites do).
  const attempt = (user: string | null, password: string | null, next: string, again: (user: string, error: string) => string): Reply =>
    passwordOk(user ?? '', password ?? '') ? signIn(user ?? '', next) : show(again(user ?? '', INVALID_CREDENTIALS));

  const common: Routes = {
    'GET /': () => go('/account'),
    'GET /account': (ctx) => {
      const user = sessions.get(ctx.cookies[cookieName] ?? '');
      return user === undefined ? go(loginPath('/account')) : show(accountPage(brand, user));
    },
    'GET /logout': (ctx) => {
      sessions.delete(ctx.cookies[cookieName] ?? '');
      return go('/login', [`${cookieName}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]);
    },
  };

  let variantRoutes: Routes;
  switch (variant) {
    case 'basic':
      variantRoutes = {
        'GET /login': (ctx) => show(pages.basic(ctx.next)),
        'POST /login': ({ form, next }) => attempt(form.get('username'), form.get('password'), next, (user, error) => pages.basic(next, user, error)),
      };
      break;
    case 'two-step':
      variantRoutes = {
        'GET /login': (ctx) => show(pages.identifier(ctx.next)),
        // Any name moves on to the password step: telling unknown names apart would let anyone enumerate users.
        'POST /login': (ctx) => {
          const user = (ctx.form.get('identifier') ?? '').trim();
          if (!user) return show(pages.identifier(ctx.next, 'Enter an email or username'));
          return go(`/login/password?${new URLSearchParams({ user, next: ctx.next })}`);
        },
        'GET /login/password': (ctx) => {
          const user = ctx.query.get('user');
          return user ? show(pages.twoStepPassword(user, ctx.next)) : go(loginPath(ctx.next));
        },
        'POST /login/password': ({ query, form, next }) => attempt(query.get('user'), form.get('passwd'), next, (user, error) => pages.twoStepPassword(user, next, error)),
      };
      break;
    case 'totp':
      variantRoutes = {
        'GET /login': (ctx) => show(pages.totpLogin(ctx.next)),
        'POST /login': (ctx) => {
          const user = ctx.form.get('login') ?? '';
          if (!passwordOk(user, ctx.form.get('password') ?? '')) return show(pages.totpLogin(ctx.next, user, INVALID_CREDENTIALS));
          if (!users[user]!.totpSecret) return signIn(user, ctx.next);
          const t = token();
          pendingMfa.set(t, { user, next: ctx.next });
          return go(opts.mfaChoice ? '/login/mfa/choose' : '/login/mfa', [`${mfaCookie}=${t}; Path=/; HttpOnly; SameSite=Lax`]);
        },
        'GET /login/mfa/choose': (ctx) => (pendingMfa.has(ctx.cookies[mfaCookie] ?? '') ? show(pages.mfaChoose()) : go('/login')),
        'GET /login/mfa/sms': (ctx) => {
          if (!pendingMfa.has(ctx.cookies[mfaCookie] ?? '')) return go('/login');
          site.smsCodes.push(String(randomBytes(3).readUIntBE(0, 3) % 1_000_000).padStart(6, '0'));
          return show(pages.sms());
        },
        'POST /login/mfa/sms': (ctx) => {
          const t = ctx.cookies[mfaCookie] ?? '';
          const pending = pendingMfa.get(t);
          if (!pending) return go('/login');
          if ((ctx.form.get('sms_code') ?? '').trim() !== site.smsCodes.at(-1)) return show(pages.sms(INVALID_CODE));
          pendingMfa.delete(t);
          return signIn(pending.user, pending.next, [`${mfaCookie}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]);
        },
        'GET /login/mfa': (ctx) => (pendingMfa.has(ctx.cookies[mfaCookie] ?? '') ? show(pages.mfa()) : go('/login')),
        'POST /login/mfa': (ctx) => {
          const t = ctx.cookies[mfaCookie] ?? '';
          const pending = pendingMfa.get(t);
          if (!pending) return go('/login');
          const code = (ctx.form.get('app_otp') ?? '').replace(/\s/g, '');
          if (!codeOk(users[pending.user]!.totpSecret!, code)) return show(pages.mfa(INVALID_CODE));
          pendingMfa.delete(t);
          return signIn(pending.user, pending.next, [`${mfaCookie}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]);
        },
      };
      break;
    case 'chooser': {
      const accounts = opts.accounts ?? Object.keys(users);
      variantRoutes = {
        'GET /login': (ctx) => show(pages.chooser(accounts, ctx.next)),
        'GET /login/password': (ctx) => {
          const account = ctx.query.get('account');
          return account ? show(pages.chooserPassword(account, ctx.next)) : go(loginPath(ctx.next));
        },
        'POST /login/password': ({ query, form, next }) => attempt(query.get('account'), form.get('Passwd'), next, (user, error) => pages.chooserPassword(user, next, error)),
        'GET /login/other': (ctx) => show(pages.otherAccount(ctx.next)),
        'POST /login/other': ({ form, next }) => attempt(form.get('email'), form.get('pw'), next, (user, error) => pages.otherAccount(next, user, error)),
      };
      break;
    }
    case 'sso': {
      idp = createServer();
      const idpOrigin = `http://127.0.0.1:${await listen(idp)}`;
      site.idpOrigin = idpOrigin;
      const callback = `${origin}/sso/callback`;
      const ssoHref = (next: string): string => {
        const state = token();
        ssoStates.set(state, next);
        return `${idpOrigin}/authorize?${new URLSearchParams({ client_id: 'orbit', response_type: 'code', redirect_uri: callback, state })}`;
      };
      variantRoutes = {
        'GET /login': (ctx) => show(pages.ssoLogin(ctx.next, ssoHref(ctx.next))),
        'POST /login': ({ form, next }) => attempt(form.get('user'), form.get('pass'), next, (user, error) => pages.ssoLogin(next, ssoHref(next), user, error)),
        'GET /sso/callback': ({ query }) => {
          const [code, state] = [query.get('code') ?? '', query.get('state') ?? ''];
          const [user, next] = [ssoCodes.get(code), ssoStates.get(state)];
          // Single-use, as a real OAuth client insists: a replayed callback must not log anyone in.
          ssoCodes.delete(code);
          ssoStates.delete(state);
          if (user === undefined || next === undefined) return show(pages.message(brand, 'Sign-in failed', 'The sign-in link has expired.'), 400);
          return signIn(user, next);
        },
      };
      // The IdP keeps no session of its own: every SSO login asks for the password again.
      const clientParams = (from: URLSearchParams) => ['client_id', 'response_type', 'redirect_uri', 'state'].map((k) => [k, from.get(k) ?? ''] as const);
      const unknownClient = (from: URLSearchParams): boolean => from.get('redirect_uri') !== callback || from.get('client_id') !== 'orbit';
      const badClient = () => show(pages.message('ExampleID', 'ExampleID - Error', 'Unknown application.'), 400);
      const idpRoutes: Routes = {
        'GET /authorize': (ctx) => (unknownClient(ctx.query) ? badClient() : show(pages.idp(clientParams(ctx.query)))),
        'POST /authorize': ({ form }) => {
          if (unknownClient(form)) return badClient();
          const user = form.get('email') ?? '';
          if (!passwordOk(user, form.get('password') ?? '')) return show(pages.idp(clientParams(form), user, INVALID_CREDENTIALS));
          const code = token();
          ssoCodes.set(code, user);
          return go(`${callback}?${new URLSearchParams({ code, state: form.get('state') ?? '' })}`);
        },
      };
      idp.on('request', (req, res) => void serve(req, res, idpRoutes, () => site.attempts++, () => false));
      break;
    }
  }

  const routes: Routes = { ...common, ...variantRoutes };
  const loggedIn = (ctx: Ctx): boolean => sessions.has(ctx.cookies[cookieName] ?? '');
  server.on('request', (req, res) => void serve(req, res, routes, () => site.attempts++, loggedIn));
  return site;
}

function codeOk(secret: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  return new TOTP({ secret: Secret.fromBase32(secret) }).validate({ token: code, window: 1 }) !== null;
}

/** `/login?next=/account`, with the slashes left readable as real sites do. */
function loginPath(next: string): string {
  return `/login?next=${encodeURIComponent(next).replace(/%2F/g, '/')}`;
}

/** Only same-site paths: `//evil` or an absolute URL would make the login page an open redirect. */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : '/account';
}

async function serve(req: IncomingMessage, res: ServerResponse, routes: Routes, onPost: () => void, loggedIn: (ctx: Ctx) => boolean): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    if (method === 'POST') onPost();
    const form = method === 'POST' ? new URLSearchParams(await readBody(req)) : new URLSearchParams();
    const cookies = parseCookies(req.headers.cookie);
    const ctx: Ctx = { path: url.pathname, query: url.searchParams, form, cookies, next: safeNext(form.get('next') ?? url.searchParams.get('next')) };
    // Like real sites, the login page sends an already signed-in visitor straight on.
    const route = ctx.path === '/login' && method === 'GET' && loggedIn(ctx) ? () => go(ctx.next) : routes[`${method} ${ctx.path}`];
    const reply = route ? route(ctx) : show(pages.message('', 'Page not found', 'There is nothing here.'), 404);
    const headers: Record<string, string | string[]> = { 'cache-control': 'no-store' };
    if (reply.setCookies?.length) headers['set-cookie'] = reply.setCookies;
    if (reply.location) headers.location = reply.location;
    if (reply.body !== undefined) headers['content-type'] = 'text/html; charset=utf-8';
    res.writeHead(reply.status, headers).end(reply.body);
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) throw new Error('form too large');
  }
  return body;
}

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  // A browser keeps connections alive; without this close() would wait for them to time out.
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

// ---- Page templates. Each variant's markup differs on purpose (names, ids, labels, buttons), as real
// sites do, so form discovery is not tuned to a single shape.

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A labelled input, the way most sites pair them (the label's `for` names the input's id). */
const field = (id: string, label: string, attrs: string): string => `<label for="${id}">${label}</label>\n  <input id="${id}" ${attrs}>`;
const hidden = (name: string, value: string): string => `<input type="hidden" name="${name}" value="${esc(value)}">`;
const alert = (error?: string): string => (error ? `<p class="error" role="alert">${esc(error)}</p>` : '');
const q = (params: Record<string, string>): string => esc(new URLSearchParams(params).toString());

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font:16px system-ui,sans-serif;background:#f4f5f7;margin:0}main{max-width:360px;margin:64px auto;background:#fff;padding:32px;border-radius:8px}
label{display:block;margin:16px 0 4px}input:not([type=hidden]){width:100%;box-sizing:border-box;padding:8px}button,input[type=submit],.button{display:block;width:100%;margin-top:20px;padding:10px}
.error{color:#b00020}.identity{font-weight:600}ul{list-style:none;padding:0}</style>
</head><body><main>
${body}
</main></body></html>`;
}

function accountPage(brand: string, user: string): string {
  return layout(`Your account · ${brand}`, `<nav><a href="/account">${esc(brand)}</a> · <a href="/logout" id="sign-out">Sign out</a></nav>
<h1>Welcome, ${esc(user)}</h1>
<p>You are signed in.</p>`);
}

const pages = {
  message: (brand: string, title: string, text: string) => layout(brand ? `${title} · ${brand}` : title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>`),

  basic: (next: string, username = '', error?: string) =>
    layout('Sign in · Acme', `<h1>Sign in to Acme</h1>
${alert(error)}
<form id="login-form" method="post" action="/login" novalidate>
  ${hidden('next', next)}
  ${field('username', 'Email', `type="email" name="username" autocomplete="username" value="${esc(username)}" required autofocus`)}
  ${field('password', 'Password', `type="password" name="password" autocomplete="current-password" required`)}
  <button type="submit">Sign in</button>
</form>
<p><a href="/forgot-password">Forgot password?</a> · <a href="/signup">Create an account</a></p>`),

  identifier: (next: string, error?: string) =>
    layout('Sign in - Northwind', `<h1>Sign in</h1>
<p>to continue to Northwind</p>
${alert(error)}
<form id="identifier-form" method="post" action="/login">
  ${hidden('next', next)}
  ${field('identifier', 'Email or username', `type="text" name="identifier" autocomplete="username" autocapitalize="none" spellcheck="false" autofocus`)}
  <button type="submit" id="identifier-next">Next</button>
</form>`),

  twoStepPassword: (user: string, next: string, error?: string) =>
    layout('Enter your password - Northwind', `<h1>Welcome</h1>
<p class="identity" id="profile-identifier">${esc(user)}</p>
<p><a href="/login?${q({ next })}">Not you?</a></p>
${alert(error)}
<form id="password-form" method="post" action="/login/password?${q({ user })}">
  ${hidden('next', next)}
  ${field('password', 'Password', `type="password" name="passwd" autocomplete="current-password" autofocus`)}
  <button type="submit">Sign in</button>
</form>`),

  totpLogin: (next: string, login = '', error?: string) =>
    layout('Sign in to Forge', `<h1>Sign in to Forge</h1>
${alert(error)}
<form id="session-form" action="/login" method="post">
  ${hidden('next', next)}
  ${field('login_field', 'Username or email address', `type="text" name="login" autocomplete="username" autocapitalize="off" autocorrect="off" value="${esc(login)}" autofocus`)}
  ${field('password', 'Password', `type="password" name="password" autocomplete="current-password"`)}
  <input type="submit" name="commit" value="Sign in">
</form>`),

  mfa: (error?: string) =>
    layout('Two-factor authentication · Forge', `<h1>Two-factor authentication</h1>
${alert(error)}
<form id="totp-form" action="/login/mfa" method="post">
  ${field('app_totp', 'Authentication code', `type="text" name="app_otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" placeholder="XXXXXX" autofocus`)}
  <button type="submit">Verify</button>
</form>
<p>Open your two-factor authenticator (TOTP) app to view your authentication code.</p>`),

  mfaChoose: () =>
    layout('Verify it is you · Forge', `<h1>Choose a verification method</h1>
<ul>
  <li><a class="button" href="/login/mfa">Authenticator app</a></li>
  <li><a class="button" href="/login/mfa/sms">Text message to •••• 42</a></li>
</ul>`),

  sms: (error?: string) =>
    layout('Enter the code we sent · Forge', `<h1>Check your phone</h1>
${alert(error)}
<form id="sms-form" action="/login/mfa/sms" method="post">
  ${field('sms_code', 'Verification code', `type="text" name="sms_code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" autofocus`)}
  <button type="submit">Verify</button>
</form>`),

  chooser: (accounts: string[], next: string) =>
    layout('Choose an account · Pinecone Mail', `<h1>Choose an account</h1>
<p>to continue to Pinecone Mail</p>
<form id="account-chooser" method="get" action="/login/password">
  ${hidden('next', next)}
  <ul>
${accounts.map((a) => `    <li><button type="submit" name="account" value="${esc(a)}">${esc(a)}</button></li>`).join('\n')}
    <li><button type="submit" formaction="/login/other">Use another account</button></li>
  </ul>
</form>`),

  chooserPassword: (account: string, next: string, error?: string) =>
    layout('Enter your password · Pinecone Mail', `<h1>Enter your password</h1>
<p class="identity">${esc(account)}</p>
${alert(error)}
<form method="post" action="/login/password?${q({ account })}">
  ${hidden('next', next)}
  ${field('current-password', 'Password', `type="password" name="Passwd" autocomplete="current-password" autofocus`)}
  <button type="submit">Sign in</button>
</form>`),

  otherAccount: (next: string, email = '', error?: string) =>
    layout('Sign in · Pinecone Mail', `<h1>Sign in</h1>
<p>Use your Pinecone Mail account</p>
${alert(error)}
<form method="post" action="/login/other">
  ${hidden('next', next)}
  ${field('email', 'Email address', `type="text" name="email" inputmode="email" autocomplete="username" value="${esc(email)}" autofocus`)}
  ${field('pw', 'Password', `type="password" name="pw" autocomplete="current-password"`)}
  <button type="submit">Continue</button>
</form>`),

  ssoLogin: (next: string, ssoHref: string, user = '', error?: string) =>
    layout('Log in · Orbit', `<h1>Log in to Orbit</h1>
<a class="button" id="sso-exampleid" href="${esc(ssoHref)}">Sign in with ExampleID</a>
<p>or log in with your Orbit account</p>
${alert(error)}
<form id="local-login" method="post" action="/login">
  ${hidden('next', next)}
  ${field('user', 'Username', `type="text" name="user" autocomplete="username" value="${esc(user)}"`)}
  ${field('pass', 'Password', `type="password" name="pass" autocomplete="current-password"`)}
  <button type="submit">Log in</button>
</form>`),

  idp: (params: ReadonlyArray<readonly [string, string]>, email = '', error?: string) =>
    layout('ExampleID - Sign in', `<h1>ExampleID</h1>
<p>Sign in to continue to Orbit</p>
${alert(error)}
<form id="idp-form" method="post" action="/authorize" novalidate>
  ${params.map(([k, v]) => hidden(k, v)).join('\n  ')}
  ${field('idp-email', 'Email', `type="email" name="email" autocomplete="username" value="${esc(email)}" autofocus`)}
  ${field('idp-password', 'Password', `type="password" name="password" autocomplete="current-password"`)}
  <button type="submit">Continue</button>
</form>`),
};

// The local login site that managed login is tested against: each variant is driven by hand in real
// Chromium, so a managed-login failure later points at the service, not at the site.
import { existsSync } from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_CODE, INVALID_CREDENTIALS, startLoginSite, type LoginSite, type LoginVariant } from '../helpers/login-site.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`login-site tests skipped: ${CHROMIUM} does not exist`);

const USER = 'ada@example.test';
const PASSWORD = 'analytical-engine-1843';
const SECRET = new Secret({ size: 20 }).base32;
const code = (): string => new TOTP({ secret: Secret.fromBase32(SECRET) }).generate();

/** Fills the variant's first credential page(s) with `password`, ending where the site answers it. */
const enterPassword: Record<LoginVariant, (page: Page, password: string) => Promise<void>> = {
  basic: async (page, password) => {
    await page.getByLabel('Email').fill(USER);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  },
  'two-step': async (page, password) => {
    await page.getByLabel('Email or username').fill(USER);
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => page.locator('#profile-identifier').textContent()).toBe(USER);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  },
  totp: async (page, password) => {
    await page.getByLabel('Username or email address').fill(USER);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  },
  chooser: async (page, password) => {
    await expectTitle(page, /^Choose an account/);
    await page.getByRole('button', { name: USER }).click();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  },
  sso: async (page, password) => {
    await page.getByRole('link', { name: 'Sign in with ExampleID' }).click();
    await expectTitle(page, /^ExampleID - Sign in$/);
    await page.getByLabel('Email').fill(USER);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
  },
};

async function logIn(page: Page, site: LoginSite): Promise<void> {
  await enterPassword[site.variant](page, PASSWORD);
  if (site.variant === 'totp') {
    await page.getByLabel('Authentication code').fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
  }
}

async function expectWelcome(page: Page, site: LoginSite): Promise<void> {
  await expect.poll(() => page.url()).toBe(site.accountUrl);
  await expect.poll(() => page.locator('h1').textContent()).toBe(`Welcome, ${USER}`);
  expect(await page.getByRole('link', { name: 'Sign out' }).count()).toBe(1);
}

async function expectLoggedOut(page: Page, site: LoginSite): Promise<void> {
  await page.goto(site.accountUrl);
  expect(page.url()).toBe(`${site.loginUrl}?next=/account`);
}

async function expectTitle(page: Page, title: RegExp): Promise<void> {
  await expect.poll(() => page.title()).toMatch(title);
}

describe.skipIf(!haveChromium)('login site', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each<LoginVariant>(['basic', 'two-step', 'totp', 'chooser', 'sso'])('%s', (variant) => {
    let site: LoginSite;
    beforeAll(async () => {
      site = await startLoginSite({ variant, users: { [USER]: { password: PASSWORD, totpSecret: SECRET } }, accounts: [USER] });
    });
    afterAll(async () => {
      await site?.close();
    });

    it('logs in, keeps the login in saved storage state, and loses it when sessions expire', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(site.accountUrl);
      expect(page.url()).toBe(`${site.loginUrl}?next=/account`);
      await logIn(page, site);
      await expectWelcome(page, site);
      expect(site.logins.map((l) => l.user)).toEqual([USER]);

      const state = await context.storageState();
      const cookie = state.cookies.find((c) => c.name === site.cookieName);
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.expires).toBeGreaterThan(Date.now() / 1000 + 3600);
      await context.close();

      const restored = await browser.newContext({ storageState: state });
      const again = await restored.newPage();
      await again.goto(site.accountUrl);
      await expectWelcome(again, site);
      site.expireSessions();
      await expectLoggedOut(again, site);
      await restored.close();
    });

    it('shows an error for a wrong password', async () => {
      const page = await browser.newPage();
      await page.goto(site.loginUrl);
      const before = site.attempts;
      await enterPassword[variant](page, 'wrong-password');
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(INVALID_CREDENTIALS);
      expect(site.attempts).toBeGreaterThan(before);
      await expectLoggedOut(page, site);
      await page.close();
    });
  });

  it('totp: a wrong code shows an error, a right one logs in', async () => {
    const site = await startLoginSite({ variant: 'totp', users: { [USER]: { password: PASSWORD, totpSecret: SECRET } } });
    const page = await browser.newPage();
    try {
      await page.goto(site.loginUrl);
      await enterPassword.totp(page, PASSWORD);
      const field = page.getByLabel('Authentication code');
      expect(await field.getAttribute('autocomplete')).toBe('one-time-code');
      await field.fill(code() === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe(INVALID_CODE);
      expect(site.logins).toEqual([]);
      await page.getByLabel('Authentication code').fill(code());
      await page.getByRole('button', { name: 'Verify' }).click();
      await expectWelcome(page, site);
    } finally {
      await page.close();
      await site.close();
    }
  });

  it('chooser: "Use another account" leads to a username and password form', async () => {
    const site = await startLoginSite({ variant: 'chooser', users: { [USER]: { password: PASSWORD } }, accounts: ['grace@example.test'] });
    const page = await browser.newPage();
    try {
      await page.goto(site.accountUrl);
      await page.getByRole('button', { name: 'Use another account' }).click();
      await page.getByLabel('Email address').fill(USER);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await expectWelcome(page, site);
    } finally {
      await page.close();
      await site.close();
    }
  });

  it('sso: the IdP is another origin, and the local form works too', async () => {
    const site = await startLoginSite({ variant: 'sso', users: { [USER]: { password: PASSWORD } } });
    const page = await browser.newPage();
    try {
      expect(site.idpOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(site.idpOrigin).not.toBe(site.origin);
      await page.goto(site.loginUrl);
      expect(await page.getByRole('link', { name: 'Sign in with ExampleID' }).getAttribute('href')).toMatch(
        new RegExp(`^${site.idpOrigin}/authorize\\?.*redirect_uri=.*state=`),
      );
      await page.getByLabel('Username').fill(USER);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await expectWelcome(page, site);
    } finally {
      await page.close();
      await site.close();
    }
  });
});

// PATCH /browsers/{id} with `profile` through the hosted SDK, unchanged: a profile loaded into a running
// browser that has none restarts its Chromium from the profile's saved state (the browser's own state before
// is gone), the session keeping its id and CDP URL; with save_changes it writes the profile back when it
// ends. A browser with a profile already is a 409, as is a profile another browser holds read-write.
import Kernel, { BadRequestError, ConflictError, NotFoundError } from '@onkernel/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
let site: Server;
let origin: string;

beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>site</title><p>site</p>'));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await svc?.close();
  site?.close();
});

/** Sets a persistent cookie and a localStorage item on the site. */
async function writeState(cdpUrl: string, key: string, value: string): Promise<void> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = browser.contexts()[0]!;
    await context.addCookies([{ name: key, value, url: origin, expires: Math.floor(Date.now() / 1000) + 3600 }]);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(origin);
    await page.evaluate(([k, v]) => localStorage.setItem(k!, v!), [key, value]);
  } finally {
    await browser.close();
  }
}

async function readState(cdpUrl: string, key: string): Promise<{ cookie?: string; stored: string | null }> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  try {
    const context = browser.contexts()[0]!;
    const cookie = (await context.cookies(origin)).find((c) => c.name === key)?.value;
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(origin);
    return { cookie, stored: await page.evaluate((k) => localStorage.getItem(k), key) };
  } finally {
    await browser.close();
  }
}

describe('loading a profile into a running browser', () => {
  it('restarts it from the profile; with save_changes the session writes the profile back', async () => {
    await kernel.profiles.create({ name: 'patched' });
    // The profile's saved state: written by a first browser that held it read-write.
    const writer = await kernel.browsers.create({ headless: true, profile: { name: 'patched', save_changes: true } });
    await writeState(writer.cdp_ws_url, 'login', 'from-profile');
    await kernel.browsers.deleteByID(writer.session_id);

    const browser = await kernel.browsers.create({ headless: true, timeout_seconds: 300 });
    expect(browser.profile).toBeUndefined();
    await writeState(browser.cdp_ws_url, 'mine', 'before-the-profile');
    const pid = svc.sessions.get(browser.session_id)!.chromium.pid;

    const updated = await kernel.browsers.update(browser.session_id, { profile: { name: 'patched', save_changes: true } });
    expect(updated).toMatchObject({ session_id: browser.session_id, cdp_ws_url: browser.cdp_ws_url, profile: { name: 'patched' }, profile_save_changes: true });
    expect(svc.sessions.get(browser.session_id)!.chromium.pid).not.toBe(pid);
    expect((await kernel.browsers.retrieve(browser.session_id)).profile?.name).toBe('patched');
    // The same CDP URL, the profile's state; the browser's own state from before is gone.
    expect(await readState(browser.cdp_ws_url, 'login')).toEqual({ cookie: 'from-profile', stored: 'from-profile' });
    expect(await readState(browser.cdp_ws_url, 'mine')).toEqual({ cookie: undefined, stored: null });

    // Only into a browser that has none.
    const again = await kernel.browsers.update(browser.session_id, { profile: { name: 'patched' } }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ConflictError);
    expect((again as ConflictError).error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/has profile 'patched' loaded already/) });

    // Held read-write now: another browser cannot take it so, and the session's changes are saved at its end.
    const other = await kernel.browsers.create({ headless: true, timeout_seconds: 120 });
    await expect(kernel.browsers.update(other.session_id, { profile: { name: 'patched', save_changes: true } })).rejects.toBeInstanceOf(ConflictError);
    expect((await kernel.browsers.retrieve(other.session_id)).profile).toBeUndefined();
    await writeState(browser.cdp_ws_url, 'login', 'changed-after-patch');
    await kernel.browsers.deleteByID(browser.session_id);
    const reader = await kernel.browsers.create({ headless: true, profile: { name: 'patched' } });
    expect(await readState(reader.cdp_ws_url, 'login')).toEqual({ cookie: 'changed-after-patch', stored: 'changed-after-patch' });

    // Read-only into the other browser: loaded, and nothing is written back.
    const readOnly = await kernel.browsers.update(other.session_id, { profile: { name: 'patched' } });
    expect(readOnly).toMatchObject({ profile: { name: 'patched' }, profile_save_changes: false });
    expect(await readState(other.cdp_ws_url, 'login')).toEqual({ cookie: 'changed-after-patch', stored: 'changed-after-patch' });
    await kernel.browsers.deleteByID(other.session_id);
    await kernel.browsers.deleteByID(reader.session_id);
  });

  it('refuses what cannot be loaded before changing anything', async () => {
    const browser = await kernel.browsers.create({ headless: true, timeout_seconds: 120 });
    const pid = svc.sessions.get(browser.session_id)!.chromium.pid;
    await expect(kernel.browsers.update(browser.session_id, { profile: { name: 'no-such-profile' } })).rejects.toBeInstanceOf(NotFoundError);
    const neither = await svc.call('PATCH', `/browsers/${browser.session_id}`, { body: { profile: {}, name: 'not-applied' } });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toContain('body.profile');
    const both = await kernel.browsers.update(browser.session_id, { profile: { id: 'x', name: 'y' } }).catch((e: unknown) => e);
    expect(both).toBeInstanceOf(BadRequestError);
    expect((await svc.call('PATCH', `/browsers/${browser.session_id}`, { body: { profile: 'patched' } })).status).toBe(400);
    const row = await kernel.browsers.retrieve(browser.session_id);
    expect(row.name).toBeUndefined();
    expect(row.profile).toBeUndefined();
    expect(svc.sessions.get(browser.session_id)!.chromium.pid).toBe(pid);
    await kernel.browsers.deleteByID(browser.session_id);
  });
});

// The hosted service's own SDK, unchanged, against the embedded service.
import Kernel, { ConflictError, NotFoundError, AuthenticationError, BadRequestError } from '@onkernel/sdk';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let kernel: Kernel;
beforeAll(async () => {
  svc = await startTestService();
  kernel = new Kernel({ apiKey: svc.apiKey, baseURL: svc.baseUrl, maxRetries: 0 });
});
afterAll(async () => {
  await svc.close();
});

describe('@onkernel/sdk against the embedded service', () => {
  it('create, retrieve, update, list and deleteByID work unchanged', async () => {
    const created = await kernel.browsers.create({ headless: true, name: 'sdk-one', tags: { via: 'sdk' }, timeout_seconds: 300 });
    expect(created.session_id).toBeTruthy();
    expect(created.timeout_seconds).toBe(300);
    // Required in the SDK's type: the BiDi endpoint with the same session token as the CDP one.
    expect(created.webdriver_ws_url).toBe(created.cdp_ws_url.replace(/\/cdp\?jwt=/, '/bidi?jwt='));

    const browser = await chromium.connectOverCDP(created.cdp_ws_url);
    expect(browser.contexts()).toHaveLength(1);
    await browser.close();

    const got = await kernel.browsers.retrieve('sdk-one');
    expect(got.session_id).toBe(created.session_id);
    const updated = await kernel.browsers.update(created.session_id, { name: 'sdk-renamed', tags: { via: 'sdk', v: '2' } });
    expect(updated.name).toBe('sdk-renamed');

    const second = await kernel.browsers.create({ headless: true, tags: { via: 'sdk' } });
    const ids: string[] = [];
    for await (const s of kernel.browsers.list({ limit: 1, tags: { via: 'sdk' } })) ids.push(s.session_id);
    expect(ids).toEqual([created.session_id, second.session_id]);

    await kernel.browsers.deleteByID('sdk-renamed');
    await kernel.browsers.deleteByID(second.session_id);
    const deleted = [];
    for await (const s of kernel.browsers.list({ status: 'deleted' })) deleted.push(s.session_id);
    expect(deleted).toEqual(expect.arrayContaining([created.session_id, second.session_id]));
  });

  it('maps our errors onto the SDK’s error classes', async () => {
    await expect(kernel.browsers.retrieve('missing-session')).rejects.toBeInstanceOf(NotFoundError);
    await expect(kernel.browsers.create({ timeout_seconds: 1 })).rejects.toBeInstanceOf(BadRequestError);
    const one = await kernel.browsers.create({ headless: true, name: 'sdk-dup' });
    await expect(kernel.browsers.create({ headless: true, name: 'sdk-dup' })).rejects.toBeInstanceOf(ConflictError);
    await kernel.browsers.deleteByID(one.session_id);
    const stranger = new Kernel({ apiKey: 'bcs_wrong', baseURL: svc.baseUrl, maxRetries: 0 });
    await expect(stranger.browsers.list()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

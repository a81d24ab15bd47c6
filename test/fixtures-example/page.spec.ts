// `cloud`, `browser` and `page`: a browser per test, a Playwright page in it, and the API to look at it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe } from 'vitest';
import { expect, test, type Page } from 'browser-scenarios/fixtures';

let server: Server;
let site: string;

test.beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>Example</title><h1>Served at ${req.url}</h1>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let previousSession: string | undefined;
let firstTarget: string | undefined;

test('page drives the browser session over CDP', async ({ page, browser, cloud, target }) => {
  await page.goto(`${site}/hello`);
  await expect.poll(() => page.locator('h1').textContent()).toBe('Served at /hello');
  expect(await page.title()).toBe('Example');

  const session = await cloud.browsers.retrieve(browser.session_id);
  expect(session.deleted_at).toBeUndefined();
  expect(session.headless).toBe(true);
  previousSession = browser.session_id;
  firstTarget = target.baseUrl;
});

test('the previous test deleted its browser', async ({ cloud, browser }) => {
  expect(previousSession).toBeDefined();
  expect(browser.session_id).not.toBe(previousSession);
  const ended = await cloud.browsers.retrieve(previousSession!, { include_deleted: true });
  expect(ended.end_reason).toBe('deleted');
});

test('records how the browser was obtained in task.meta', async ({ browser, task }) => {
  expect(task.meta.bcs?.browser).toMatchObject({ session_id: browser.session_id, source: 'create' });
  expect(task.meta.bcs?.browser?.wait_ms).toBeGreaterThanOrEqual(0);
});

describe('with browserOptions', () => {
  test.override({ browserOptions: { headless: true, viewport: { width: 800, height: 600 } } });

  test('the browser is created with them', async ({ page, browser }) => {
    expect(browser.viewport).toMatchObject({ width: 800, height: 600 });
    await page.goto(`${site}/sized`);
    expect(await page.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([800, 600]);
  });
});

// A project's own fixtures build on these, and share the worker's service with them.
const withHome = test.extend<{ home: Page }>({
  home: async ({ page }, use) => {
    await page.goto(`${site}/home`);
    await use(page);
  },
});

withHome('a project’s own fixture builds on page', async ({ home, target }) => {
  expect(await home.locator('h1').textContent()).toBe('Served at /home');
  expect(target.baseUrl).toBe(firstTarget);
});

// `pool`: tests lease their browser from a warm pool instead of creating one; a passing test gives it back
// for the next, a failing one has it replaced.
import { describe } from 'vitest';
import { expect, test } from 'browser-scenarios/fixtures';

const POOL = 'fixtures-example';

// `cloud` is worker-scoped, so suite hooks may use it: the pool lives as long as this file's tests.
test.beforeAll(async ({ cloud }) => {
  await cloud.request('POST', '/browser_pools', { body: { name: POOL, size: 1 } });
});

test.afterAll(async ({ cloud }) => {
  await cloud.request('DELETE', `/browser_pools/${POOL}`, { body: { force: true } });
});

describe('leasing from a pool', () => {
  test.override({ pool: POOL, acquireTimeoutMs: 20_000 });

  let leased: string | undefined;

  test('the browser comes from the pool', async ({ browser, page, task }) => {
    expect(browser.pool?.name).toBe(POOL);
    expect(task.meta.bcs?.browser).toMatchObject({ session_id: browser.session_id, source: 'pool', pool: POOL });
    expect(task.annotations.map((a) => a.type)).toContain('bcs:lease');
    await page.goto('data:text/html,<title>leased</title>');
    expect(await page.title()).toBe('leased');
    leased = browser.session_id;
  });

  test('a passing test gives it back for reuse, reset', async ({ browser, page }) => {
    expect(browser.session_id).toBe(leased);
    expect(page.url()).toBe('about:blank');
  });

  // Deliberately failing, for the package's own test of how a failure is reported (BCS_EXAMPLE_FAILURES=1).
  test.runIf(process.env.BCS_EXAMPLE_FAILURES)('a failing test holding a lease', async ({ browser }) => {
    leased = browser.session_id;
    expect(browser.session_id, 'deliberate failure').toBe('another browser');
  });

  test.runIf(process.env.BCS_EXAMPLE_FAILURES)('the failed test’s browser was replaced, not reused', async ({ browser, cloud }) => {
    expect(browser.session_id).not.toBe(leased);
    const old = await cloud.browsers.retrieve(leased!, { include_deleted: true });
    expect(old.deleted_at).toBeDefined();
  });
});

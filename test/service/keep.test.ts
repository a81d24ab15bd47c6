// POST /browsers/{id}/keep (ours): a kept browser outlives its inactivity timeout until `kept.until` by the
// service's clock (injected here, so an hour passes without waiting for it), then ends as `keep_expired`;
// DELETE releases it sooner. It is listed (`?kept=true`), keeps its place against the concurrency limits, and
// the contexts and pages a CDP client made in it stay when that client disconnects. The hosted wire has none
// of it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_MAX_SECONDS } from '../../src/api/schemas/browser-keep.js';
import { eventually, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
/** How far the service's clock is ahead of the wall's. */
let ahead = 0;
const HOUR = 3_600_000;

beforeAll(async () => {
  svc = await startTestService({ now: () => new Date(Date.now() + ahead) });
});
afterAll(async () => {
  await svc?.close();
});

const create = async (body: object = {}, headers: Record<string, string> = {}) => {
  const res = await svc.call('POST', '/browsers', { body: { headless: true, ...body }, headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { session_id: string; cdp_ws_url: string; kept?: unknown };
};
const keep = (id: string, body: object, headers: Record<string, string> = {}) => svc.call('POST', `/browsers/${id}/keep`, { body, headers });
const ended = (id: string) =>
  eventually(async () => {
    const res = await svc.call('GET', `/browsers/${id}?include_deleted=true`);
    return res.body.deleted_at ? res.body : undefined;
  });

describe('keeping a browser', () => {
  it('keeps it past its inactivity timeout until `until` by the service clock, then ends it as keep_expired', async () => {
    const kept = await create({ timeout_seconds: 10 });
    const idle = await create({ timeout_seconds: 10 });
    const reason = { run_id: 'run-7', scenario: 'checkout', step: "click 'Pay'", message: 'expected title Paid' };
    const answer = await keep(kept.session_id, { seconds: 900, reason });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const until = Date.parse(answer.body.kept.until);
    expect(until - (Date.now() + ahead)).toBeGreaterThan(890_000);
    expect(until - (Date.now() + ahead)).toBeLessThanOrEqual(900_000);
    expect(answer.body.kept).toEqual({ until: answer.body.kept.until, reason });
    expect((await svc.call('GET', `/browsers/${kept.session_id}`)).body.kept).toEqual(answer.body.kept);

    // Listed: kept ones, and the others.
    const keptList = (await svc.call('GET', '/browsers?kept=true')).body.map((s: { session_id: string }) => s.session_id);
    const others = (await svc.call('GET', '/browsers?kept=false')).body.map((s: { session_id: string }) => s.session_id);
    expect(keptList).toEqual([kept.session_id]);
    expect(others).toContain(idle.session_id);
    expect(others).not.toContain(kept.session_id);

    // An hour of inactivity ends the idle one, not the kept one.
    svc.sessions.sweepInactive(Date.now() + HOUR);
    expect((await ended(idle.session_id)).end_reason).toBe('timeout');
    expect((await svc.call('GET', `/browsers/${kept.session_id}`)).status).toBe(200);

    // Kept again: the new end counts from now.
    const again = await keep(kept.session_id, { seconds: 1800 });
    expect(Date.parse(again.body.kept.until)).toBeGreaterThan(until);
    expect(again.body.kept.reason).toEqual({});

    ahead += 29 * 60_000;
    svc.sessions.sweepKept();
    expect((await svc.call('GET', `/browsers/${kept.session_id}`)).status).toBe(200);
    ahead += 2 * 60_000;
    const gone = await ended(kept.session_id);
    expect(gone.end_reason).toBe('keep_expired');
    expect(gone.end_detail).toBe(`kept until ${again.body.kept.until} and not deleted by then`);
    // The record still says it was kept, and why.
    expect(gone.kept).toEqual(again.body.kept);
    expect((await svc.call('GET', '/browsers?kept=true')).body).toEqual([]);
    expect((await svc.call('GET', '/browsers?kept=true&status=all')).body.map((s: { session_id: string }) => s.session_id)).toEqual([kept.session_id]);
  });

  it('is released by DELETE, as any session', async () => {
    const b = await create();
    await keep(b.session_id, { seconds: 60 });
    expect((await svc.call('DELETE', `/browsers/${b.session_id}`)).status).toBe(204);
    const gone = await ended(b.session_id);
    expect(gone.end_reason).toBe('deleted');
    expect(svc.sessions.get(b.session_id)).toBeUndefined();
  });

  it('refuses what is out of bounds, an ended browser and a pool browser', async () => {
    const b = await create();
    for (const [body, field] of [
      [{}, 'body.seconds'],
      [{ seconds: 0 }, 'body.seconds'],
      [{ seconds: KEEP_MAX_SECONDS + 1 }, 'body.seconds'],
      [{ seconds: 60, reason: { step: '' } }, 'body.reason.step'],
      [{ seconds: 60, forever: true }, 'body.forever'],
    ] as const) {
      const res = await keep(b.session_id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await keep(b.session_id, { seconds: KEEP_MAX_SECONDS })).status).toBe(200);
    await svc.call('DELETE', `/browsers/${b.session_id}`);
    expect((await keep(b.session_id, { seconds: 60 })).status).toBe(404);
    expect((await keep('no-such-browser', { seconds: 60 })).body).toEqual({ code: 'not_found', message: "browser 'no-such-browser' not found" });

    expect((await svc.call('POST', '/browser_pools', { body: { name: 'keep-pool', size: 1 } })).status).toBe(200);
    const leased = await eventually(async () => {
      const res = await svc.call('POST', '/browser_pools/keep-pool/acquire', { body: { acquire_timeout_seconds: 30 } });
      return res.status === 200 ? res.body : undefined;
    });
    const refused = await keep(leased.session_id, { seconds: 60 });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('pool_browser');
    await svc.call('DELETE', '/browser_pools/keep-pool', { body: { force: true } });
  });

  it('holds its place against the project and org concurrency limits until it ends', async () => {
    const project = (await svc.call('POST', '/org/projects', { body: { name: 'keep-limits' } })).body;
    const as = { 'x-kernel-project-id': project.id };
    await svc.call('PATCH', `/org/projects/${project.id}/limits`, { body: { max_concurrent_sessions: 1 } });
    const b = await create({}, as);
    expect((await keep(b.session_id, { seconds: 600 }, as)).status).toBe(200);
    const refused = await svc.call('POST', '/browsers', { body: { headless: true }, headers: as });
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('concurrency_limit_exceeded');
    // The org's limit counts it too: at as many as run now (the kept one among them), the next is refused.
    await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: svc.sessions.onDemandSessions } });
    try {
      const org = await svc.call('POST', '/browsers', { body: { headless: true } });
      expect(org.status).toBe(429);
      expect(org.body.code).toBe('concurrency_limit_exceeded');
    } finally {
      await svc.call('PATCH', '/org/limits', { body: { max_concurrent_sessions: null } });
    }
    await svc.call('DELETE', `/browsers/${b.session_id}`, { headers: as });
    const now = await create({}, as);
    await svc.call('DELETE', `/browsers/${now.session_id}`, { headers: as });
  });
});

/** The page showing `marker` among every page of the browser `cdpUrl` leads to, through a new connection. */
async function findPage(cdpUrl: string, marker: string): Promise<{ page: Page | undefined; close(): Promise<void> }> {
  const browser = await chromium.connectOverCDP(cdpUrl);
  const pages = browser.contexts().flatMap((c) => c.pages());
  const titles = await Promise.all(pages.map((p) => p.title().catch(() => '')));
  return { page: pages[titles.indexOf(marker)], close: () => browser.close() };
}

describe('a restart', () => {
  it('leaves the record saying the browser was kept, and why', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bcs-keep-'));
    const apiKey = 'bcs_keep-restart-key-of-this-test';
    try {
      const first = await startTestService({ dataDir, apiKey });
      const id = (await first.call('POST', '/browsers', { body: { headless: true } })).body.session_id as string;
      const kept = (await first.call('POST', `/browsers/${id}/keep`, { body: { seconds: 600, reason: { scenario: 'restarted' } } })).body.kept;
      await first.close();
      // Its Chromium ends with the service, as every session's does; what it was kept for stays on record.
      const second = await startTestService({ dataDir, apiKey });
      try {
        const record = (await second.call('GET', `/browsers/${id}?include_deleted=true`)).body;
        expect(record.deleted_at).toBeTruthy();
        expect(record.kept).toEqual(kept);
        expect((await second.call('GET', '/browsers?kept=true&status=all')).body.map((s: { session_id: string }) => s.session_id)).toEqual([id]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  });
});

describe("a kept browser's contexts", () => {
  it('stay with their pages when the client that made them disconnects; without a keep they go', async () => {
    for (const kept of [true, false]) {
      const b = await create();
      const client = await chromium.connectOverCDP(b.cdp_ws_url);
      const context = await client.newContext();
      // An interception left behind would hold every request of the page: the handover ends it.
      await context.route('**/held*', () => {});
      const page = await context.newPage();
      await page.goto(`${svc.baseUrl}/json/protocol?${kept}`);
      await page.evaluate(() => (document.title = 'left here'));
      if (kept) await keep(b.session_id, { seconds: 300 });
      await client.close();

      const found = await findPage(b.cdp_ws_url, 'left here');
      try {
        if (!kept) {
          expect(found.page).toBeUndefined();
          continue;
        }
        expect(found.page!.url()).toBe(`${svc.baseUrl}/json/protocol?true`);
        const status = await found.page!.evaluate(() => fetch('/held', { signal: AbortSignal.timeout(10_000) }).then((r) => r.status, (e: Error) => e.message));
        // The service answers (the request has no key); an interception left behind would time out.
        expect(typeof status, String(status)).toBe('number');
      } finally {
        await found.close();
        await svc.call('DELETE', `/browsers/${b.session_id}`);
      }
    }
  });
});

describe('on the hosted wire only', () => {
  let strict: TestService;
  beforeAll(async () => {
    strict = await startTestService({ strictWire: true });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('there is no keep route and no kept filter', async () => {
    const b = (await strict.call('POST', '/browsers', { body: { headless: true } })).body;
    const res = await strict.call('POST', `/browsers/${b.session_id}/keep`, { body: { seconds: 60 } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: `no route POST /browsers/${b.session_id}/keep` });
    const list = await strict.call('GET', '/browsers?kept=true');
    expect(list.status).toBe(400);
    expect(list.body.message).toBe('querystring.kept: unknown field');
    expect(b).not.toHaveProperty('kept');
    await strict.call('DELETE', `/browsers/${b.session_id}`);
  });
});

// The console's project picker in real Chromium against the real service: an org-wide key picks the project
// its requests name (X-Kernel-Project-Id), the choice outlives a reload and not a sign-out, and a
// project-scoped key gets no picker. Its own service and browser, as console.test.ts has.
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { created, open, signIn } from '../helpers/console.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  svc = await startTestService();
  browser = await chromium.launch({ executablePath: svc.chromium.path });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});

afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** The sessions listed, once the list has loaded (an empty one says so rather than showing no rows). */
async function sessionsShown(): Promise<string[] | undefined> {
  if (await page.getByText('No sessions.').count()) return [];
  const rows = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row') ?? ''));
  return rows.length ? rows : undefined;
}

const picked = () => page.evaluate(() => sessionStorage.getItem('bcs-console-project'));

describe("the console's project picker", () => {
  it("shows an org-wide key one project's sessions at a time, and a scoped key its own without a picker", async () => {
    const a = await created(svc, '/org/projects', { name: 'picker-a' });
    const b = await created(svc, '/org/projects', { name: 'picker-b' });
    const inA = { 'x-kernel-project-id': a.id as string };
    const inB = { 'x-kernel-project-id': b.id as string };
    const sessionA = (await created(svc, '/browsers', { name: 'session-a', headless: true }, inA)).session_id as string;
    const sessionB = (await created(svc, '/browsers', { name: 'session-b', headless: true }, inB)).session_id as string;
    const scopedKey = await created(svc, '/org/api_keys', { name: 'picker-scoped', project_id: a.id });
    try {
      await open(svc, page, 'sessions', 'Sessions');
      const picker = page.getByRole('combobox', { name: /^Project/ });
      // Without the header an org-wide key acts in the org's default scope, which holds neither.
      await expect.poll(sessionsShown).toEqual([]);
      expect(await picker.inputValue()).toBe('');
      expect(await picker.locator('option').allTextContents()).toEqual(['Default scope (no project)', 'picker-a', 'picker-b']);
      // A project made after sign-in is offered the next time the picker is opened, without a reload.
      await created(svc, '/org/projects', { name: 'picker-c' });
      await picker.focus();
      await expect.poll(() => picker.locator('option').allTextContents()).toEqual(['Default scope (no project)', 'picker-a', 'picker-b', 'picker-c']);
      await picker.blur();

      await picker.selectOption({ label: 'picker-a' });
      await expect.poll(sessionsShown).toEqual([sessionA]);
      expect(await picked()).toBe(a.id);
      await picker.selectOption({ label: 'picker-b' });
      await expect.poll(sessionsShown).toEqual([sessionB]);

      await page.reload();
      await expect.poll(sessionsShown).toEqual([sessionB]);
      await expect.poll(() => picker.inputValue()).toBe(b.id);

      // The session's page reads it in the project, and its live view (a token, no header) draws its screen.
      await page.locator(`tr[data-row="${sessionB}"]`).getByRole('link').click();
      await page.getByRole('heading', { name: 'Session session-b' }).waitFor();
      await expect.poll(async () => Number(await page.locator('.live-view [data-frames]').getAttribute('data-frames'))).toBeGreaterThan(0);
      // Picking another project there leaves the session (not found in A) for A's list.
      await picker.selectOption({ label: 'picker-a' });
      await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/sessions');
      await expect.poll(sessionsShown).toEqual([sessionA]);
      await picker.selectOption({ label: 'picker-b' });

      // The audit log route ignores the header: the page filters it by the project picked instead.
      await open(svc, page, 'audit', 'Audit log');
      const projectsLogged = async () => [...new Set(await page.locator('tbody tr td:nth-child(6)').allTextContents())];
      await expect.poll(projectsLogged).toEqual([b.id]);
      expect(await page.locator('main').textContent()).toContain('in the project picked');

      // The API ignores the header on organisation routes: their pages show the whole org, and say so.
      await open(svc, page, 'api-keys', 'API keys');
      await expect.poll(() => page.locator('main').textContent()).toContain('picker-scoped');
      expect(await page.locator('main').textContent()).toContain('The whole organisation: the project picked does not apply here.');

      await page.getByRole('button', { name: 'Sign out' }).click();
      expect(await picked()).toBeNull();

      // The scoped key is refused the project list: no picker, no error, and its project's session only.
      const refused = page.waitForResponse((res) => new URL(res.url()).pathname === '/org/projects');
      await signIn(svc, page, scopedKey.key as string);
      expect((await refused).status()).toBe(403);
      await expect.poll(sessionsShown).toEqual([sessionA]);
      expect(await picker.count()).toBe(0);
      expect(await page.locator('nav').first().textContent()).toContain(`project ${a.id}`);
      expect(await page.getByRole('alert').count()).toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
    } finally {
      await svc.call('DELETE', `/browsers/${sessionA}`, { headers: inA });
      await svc.call('DELETE', `/browsers/${sessionB}`, { headers: inB });
      await svc.call('DELETE', `/org/api_keys/${scopedKey.id}`);
      for (const p of [a, b]) expect((await svc.call('DELETE', `/org/projects/${p.id}`)).status).toBe(204);
    }
  });
});

// Pages the browser has opened that Playwright has not reported yet. Playwright reports a popup (the
// context's 'page' event, and so `context.pages()`) only once its first navigation has committed, which for
// a slow server is long after the click that opened it returned: a `switch_page` that only looked at
// `context.pages()` then raced that page and picked the opener. Chromium itself knows the page, and which
// page opened it, from the moment it opens it, so its list of targets says which popups are on their way.
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { sleep } from './page-actions.js';

const POLL_MS = 25;

/**
 * Resolves once every page that a page of `context` opened (a popup: Chromium names its opener) is one of
 * `context.pages()`, or at `deadline` (a popup Playwright never reports, such as one that crashed while
 * opening, must not hang the step: the caller then works with the pages it has). Pages nothing here opened
 * (another client's tab) are not waited for: Playwright may never report them.
 */
export async function awaitOpenedPages(context: BrowserContext, deadline: number, signal: AbortSignal): Promise<void> {
  const browser = context.browser();
  if (!browser || !context.pages().length) return;
  let all: CDPSession | undefined;
  try {
    all = await browser.newBrowserCDPSession();
    for (;;) {
      const known = new Set(await Promise.all(context.pages().map((page) => targetId(context, page))));
      const { targetInfos } = await all.send('Target.getTargets');
      const coming = targetInfos.some((t) => t.type === 'page' && t.openerId !== undefined && known.has(t.openerId) && !known.has(t.targetId));
      if (!coming || Date.now() >= deadline) return;
      await sleep(POLL_MS, signal);
    }
  } catch (err) {
    // A browser that cannot say (a page closed meanwhile, a CDP endpoint without Target) leaves the pages
    // Playwright knows; an interrupt is not that.
    if (signal.aborted) throw err;
  } finally {
    await all?.detach().catch(() => {});
  }
}

const targetIds = new WeakMap<Page, Promise<string>>();

/** Chromium's id for a page, asked once per page. */
function targetId(context: BrowserContext, page: Page): Promise<string> {
  let id = targetIds.get(page);
  if (!id) {
    id = (async () => {
      const session = await context.newCDPSession(page);
      try {
        return (await session.send('Target.getTargetInfo')).targetInfo.targetId;
      } finally {
        await session.detach().catch(() => {});
      }
    })();
    targetIds.set(page, id);
  }
  return id;
}

/** Pages the context opened, with when: a page opened since a step began is one that step may have caused. */
export function watchOpenedPages(context: BrowserContext): WeakMap<Page, number> {
  const openedAt = new WeakMap<Page, number>();
  context.on('page', (page) => openedAt.set(page, Date.now()));
  return openedAt;
}

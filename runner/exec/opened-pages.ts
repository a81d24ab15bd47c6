// Pages the browser has opened that Playwright has not reported yet. Playwright reports a popup (the
// context's 'page' event, and so `context.pages()`) only once its first navigation has committed, which for
// a slow server is long after the click that opened it returned: a `switch_page` that only looked at
// `context.pages()` then raced that page and picked the opener. Chromium itself knows the page from the
// moment it opens it, so its list of targets says how many pages are still on their way.
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { sleep } from './page-actions.js';

const POLL_MS = 25;

/**
 * Resolves once every page Chromium has opened in `context` is one of `context.pages()`, or at `deadline`
 * (a page Playwright never reports, such as one that crashed while opening, must not hang the step: the
 * caller then works with the pages it has).
 */
export async function awaitOpenedPages(context: BrowserContext, deadline: number, signal: AbortSignal): Promise<void> {
  const anyPage = context.pages()[0];
  const browser = context.browser();
  if (!anyPage || !browser) return;
  let own: CDPSession | undefined;
  let all: CDPSession | undefined;
  try {
    own = await context.newCDPSession(anyPage);
    const { targetInfo } = await own.send('Target.getTargetInfo');
    all = await browser.newBrowserCDPSession();
    for (;;) {
      const { targetInfos } = await all.send('Target.getTargets');
      // Tabs of this context; not prerendered pages (a subtype), which no one will ever act on.
      const opened = targetInfos.filter((t) => t.type === 'page' && !t.subtype && t.browserContextId === targetInfo.browserContextId).length;
      if (context.pages().length >= opened || Date.now() >= deadline) return;
      await sleep(POLL_MS, signal);
    }
  } catch (err) {
    // A browser that cannot say (the page closed meanwhile, a CDP endpoint without Target) leaves the pages
    // Playwright knows; an interrupt is not that.
    if (signal.aborted) throw err;
  } finally {
    await own?.detach().catch(() => {});
    await all?.detach().catch(() => {});
  }
}

/** Pages the context opened, with when: a page opened since a step began is one that step may have caused. */
export function watchOpenedPages(context: BrowserContext): WeakMap<Page, number> {
  const openedAt = new WeakMap<Page, number>();
  context.on('page', (page) => openedAt.set(page, Date.now()));
  return openedAt;
}

// What rendered a page, as a short stable id for keying screenshot baselines: two Chromium builds draw the
// same page differently (text antialiasing, font hinting), so a baseline belongs to the build that wrote it.
// The id comes from the connected browser itself (the service may be remote and says nothing of it):
// `Browser.getVersion` names the old headless shell `HeadlessChrome/…` and a full Chromium `Chrome/…`
// (headless or not), and its user agent says the platform.
import type { Browser } from 'playwright-core';

export interface BrowserBuild {
  /** `chromium-156-shell-linux`: product, major version, headless shell or full browser, platform. */
  id: string;
  /** As Node names it (and Playwright's `{platform}`): `linux`, `darwin`, `win32`. */
  platform: string;
  /** The full version (`156.0.8078.108`), for messages. */
  version: string;
}

export interface VersionInfo {
  product: string;
  userAgent: string;
}

const builds = new WeakMap<Browser, Promise<BrowserBuild>>();

/** The build of a connected browser, asked once per connection. */
export function browserBuild(browser: Browser): Promise<BrowserBuild> {
  let build = builds.get(browser);
  if (!build) {
    build = (async () => {
      const session = await browser.newBrowserCDPSession();
      try {
        return buildOf((await session.send('Browser.getVersion')) as VersionInfo);
      } finally {
        await session.detach().catch(() => {});
      }
    })();
    builds.set(browser, build);
  }
  return build;
}

export function buildOf(info: VersionInfo): BrowserBuild {
  const product = /^(Headless)?(\w+)\/([\d.]+)/.exec(info.product);
  if (!product) throw new Error(`cannot tell the browser build from its product '${info.product}'`);
  const [, headless, , version] = product;
  const platform = platformOf(info.userAgent);
  const major = version!.split('.')[0];
  return { id: `chromium-${major}-${headless ? 'shell' : 'full'}-${platform}`, platform, version: version! };
}

function platformOf(userAgent: string): string {
  if (/Windows/.test(userAgent)) return 'win32';
  if (/Macintosh|Mac OS X/.test(userAgent)) return 'darwin';
  if (/Android/.test(userAgent)) return 'android';
  if (/Linux|X11|CrOS/.test(userAgent)) return 'linux';
  return 'unknown';
}

// The DevTools protocol descriptor (`/json/protocol`) of a session's browser, and the host's own. A headless
// shell is never asked for it: Debian's serves it, but other builds have none, and the shell of
// @sparticuz/chromium (147) dies when asked, taking the session with it. The descriptor belongs to the build,
// so the full Chromium beside the shell gives it when it is the same version (read once, from a browser
// launched for that).
import { join } from 'node:path';
import { newId } from '../../ids.js';
import { readProtocolDescriptor, removeDir, type ChromiumExecutable } from '../browser/index.js';
import { DomainError } from '../errors.js';
import { fetchDiscovery } from './cdp-discovery.js';
import type { Logger } from './types.js';

export interface ProtocolDescriptorDeps {
  /** The full Chromium (itself a headless shell where that is all there is). */
  full: ChromiumExecutable;
  sessionsDir: string;
  log: Logger;
  /** Cleanup work the owner waits for when it closes. */
  track: (work: Promise<unknown>) => void;
}

export class ProtocolDescriptors {
  private fullProtocol: Promise<{ browser: string; protocol: string } | undefined> | undefined;

  constructor(private readonly deps: ProtocolDescriptorDeps) {}

  /** The descriptor of the browser `exe` runs, its DevTools at `wsEndpoint`. */
  async ofSession(exe: ChromiumExecutable | undefined, wsEndpoint: string): Promise<string> {
    if (!exe?.headlessShell) return fetchDiscovery(wsEndpoint, 'protocol');
    const { full } = this.deps;
    const notHere = (why: string) =>
      new DomainError('not_found', 'protocol_unavailable', `the DevTools protocol descriptor is not available with this browser: it runs on Chromium's headless shell (${exe.path}), which does not serve it, and ${why}`);
    if (full.headlessShell) throw notHere('there is no full Chromium here to take it from');
    const [source, version] = await Promise.all([this.readFullProtocol(), fetchDiscovery(wsEndpoint, 'version')]);
    if (!source) throw notHere(`the full Chromium here (${full.path}) did not give it`);
    const own = browserOf(version);
    if (!own || versionOf(own) !== versionOf(source.browser)) throw notHere(`the full Chromium here is another version (${source.browser}; the browser is ${own || 'unknown'})`);
    return source.protocol;
  }

  /** The host's own (`GET /json/protocol` at the root): the full Chromium's; none where there is only a shell. */
  async ofHost(): Promise<string> {
    const { full } = this.deps;
    const notHere = (why: string) => new DomainError('not_found', 'protocol_unavailable', `the DevTools protocol descriptor is not available here: ${why}`);
    if (full.headlessShell) throw notHere(`the only Chromium is a headless shell (${full.path}), which does not serve it`);
    const source = await this.readFullProtocol();
    if (!source) throw notHere(`the Chromium here (${full.path}) did not give it`);
    return source.protocol;
  }

  /**
   * The full Chromium's descriptor and version, read once. A failure is kept too (undefined, logged): the
   * root document is served without a key, and must not become a way to launch browsers at will.
   */
  private readFullProtocol(): Promise<{ browser: string; protocol: string } | undefined> {
    this.fullProtocol ??= (async () => {
      const dir = join(this.deps.sessionsDir, `.probe-${newId(8)}`);
      try {
        return await readProtocolDescriptor(this.deps.full, dir);
      } catch (err) {
        this.deps.log.warn({ err: (err as Error).message }, 'could not read the DevTools protocol descriptor of the full Chromium');
        return undefined;
      } finally {
        this.deps.track(removeDir(dir));
      }
    })();
    return this.fullProtocol;
  }
}

/** `/json/version`'s `Browser` (`HeadlessChrome/156.0.8078.108`). */
function browserOf(versionDocument: string): string | undefined {
  try {
    const browser = (JSON.parse(versionDocument) as { Browser?: unknown }).Browser;
    return typeof browser === 'string' ? browser : undefined;
  } catch {
    return undefined;
  }
}

const versionOf = (browser: string) => /\/([\d.]+)$/.exec(browser)?.[1];

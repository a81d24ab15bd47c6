// Recording a scenario on a running session's browser, for someone using it through the live view (the
// console's Record button): Playwright connects over CDP, as a login flow's does, and its recorder watches
// the first context. Its overlay and toolbar draw inside the page, so the live view's input (real input to
// the page) is recorded, and the toolbar's assert tools work there too. What it records is translated by
// src/recorder, the same code `bcs codegen` writes its files with.
import type { Browser } from 'playwright-core';
import type { CodegenRecording } from '../../../api/types.js';
import { recordContext, type ContextRecorder } from '../../../recorder/record.js';
import { scenarioYaml } from '../../../recorder/scenario-file.js';
import { startUrl } from '../../../recorder/start-url.js';
import { translate } from '../../../recorder/translate.js';
import { conflict, invalidField, notFound, unavailable } from '../errors.js';
import type { LiveSession } from '../session/index.js';

const CONNECT_TIMEOUT_MS = 30_000;
const NAVIGATE_TIMEOUT_MS = 30_000;

export interface CodegenStart {
  name?: string;
  /** Where the recording starts (opened once the recorder is on); else the page as it is. */
  url?: string;
  /** The page size the scenario gets, the session's: its locators then find what was recorded. */
  viewport: { width: number; height: number };
}

/** The input's field names, as the route that hands it over names them. */
export interface CodegenFields {
  url: string;
}

interface Entry {
  name: string;
  startUrl: string;
  startedAt: Date;
  viewport: { width: number; height: number };
  recorder: ContextRecorder;
  browser: Browser;
  status: 'recording' | 'stopped';
  stopping?: Promise<void>;
}

export class CodegenRecorders {
  private readonly entries = new Map<string, Entry>();
  /** Sessions a recording is being started on: a second start waits for none, it is refused. */
  private readonly starting = new Set<string>();
  /** Sessions whose end already drops their recording. */
  private readonly watched = new Set<string>();

  constructor(private readonly deps: { now: () => Date }) {}

  async start(session: LiveSession, o: CodegenStart, fields: CodegenFields): Promise<CodegenRecording> {
    let url: string | undefined;
    if (o.url !== undefined) {
      try {
        url = startUrl(o.url);
      } catch (err) {
        throw invalidField(fields.url, (err as Error).message);
      }
      // The recorder opens what the caller says in the session's browser; the host's own files are not the caller's.
      if (!/^https?:/.test(url)) throw invalidField(fields.url, `'${o.url}': a recording on the service starts on an http or https page`);
    }
    if (this.starting.has(session.id) || this.entries.get(session.id)?.status === 'recording') {
      throw conflict('a recording is already running on this browser: stop it (DELETE) before starting another');
    }
    this.starting.add(session.id);
    try {
      const entry = await this.connect(session, o, url);
      await this.replace(session.id, entry);
      // Chromium went (the session ended or restarted): what was recorded stays readable, stopped.
      entry.browser.once('disconnected', () => (entry.status = 'stopped'));
      if (!this.watched.has(session.id)) {
        this.watched.add(session.id);
        session.cleanups.push(() => this.release(session.id));
      }
      // It ended while the recorder started: its cleanups may have run already.
      if (session.ending) {
        await this.release(session.id);
        throw notFound('browser', session.id);
      }
      return present(entry);
    } finally {
      this.starting.delete(session.id);
    }
  }

  /** Playwright on the session's browser, the recorder on its first context, and the start page opened. */
  private async connect(session: LiveSession, o: CodegenStart, url: string | undefined): Promise<Entry> {
    await session.ready;
    // Loaded on first use: most services never record.
    const { chromium } = await import('playwright-core');
    let browser: Browser;
    try {
      browser = await chromium.connectOverCDP(session.chromium.wsEndpoint, { timeout: CONNECT_TIMEOUT_MS });
    } catch (err) {
      throw unavailable('recorder_unavailable', `could not connect the recorder to the browser: ${firstLine(err)}`);
    }
    try {
      const context = browser.contexts()[0] ?? (await browser.newContext());
      const page = context.pages()[0] ?? (await context.newPage());
      const recorder = await recordContext(context, () => {});
      const startUrl = url ?? page.url();
      const entry: Entry = { name: o.name ?? hostOf(startUrl), startUrl, startedAt: this.deps.now(), viewport: o.viewport, recorder, browser, status: 'recording' };
      // A page that does not open is still recorded: the person sees it in the live view and goes on from there.
      if (url) await page.goto(url, { timeout: NAVIGATE_TIMEOUT_MS }).catch(() => undefined);
      return entry;
    } catch (err) {
      await browser.close().catch(() => undefined);
      throw unavailable('recorder_unavailable', `could not start the recorder: ${firstLine(err)}`);
    }
  }

  /** The recording on `sessionId` so far (or as it stopped). */
  get(sessionId: string, id: string): CodegenRecording {
    const entry = this.entries.get(sessionId);
    if (!entry) throw notFound('recording on browser', id);
    return present(entry);
  }

  /** Stops the recording (its toolbar leaves the page) and answers it as it ended; stopping again answers the same. */
  async stop(sessionId: string, id: string): Promise<CodegenRecording> {
    const entry = this.entries.get(sessionId);
    if (!entry) throw notFound('recording on browser', id);
    await this.close(entry);
    return present(entry);
  }

  /** The session ended, or its pool lease did: its recording goes with it. */
  async release(sessionId: string): Promise<void> {
    const entry = this.entries.get(sessionId);
    this.entries.delete(sessionId);
    this.watched.delete(sessionId);
    if (entry) await this.close(entry);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((id) => this.release(id)));
  }

  private async replace(sessionId: string, entry: Entry): Promise<void> {
    const old = this.entries.get(sessionId);
    this.entries.set(sessionId, entry);
    if (old) await this.close(old);
  }

  private close(entry: Entry): Promise<void> {
    entry.stopping ??= (async () => {
      // Lets out a click the recorder still holds, then leaves the page as it was.
      if (entry.status === 'recording') await entry.recorder.stop();
      entry.status = 'stopped';
      // Disconnecting leaves the session's own context and pages alone.
      await entry.browser.close().catch(() => undefined);
    })();
    return entry.stopping;
  }
}

function present(entry: Entry): CodegenRecording {
  const { steps, skipped } = translate(entry.recorder.recording.actions, entry.startUrl);
  return {
    status: entry.status,
    name: entry.name,
    start_url: entry.startUrl,
    started_at: entry.startedAt.toISOString(),
    step_count: steps.length,
    skipped,
    yaml: scenarioYaml({ name: entry.name, viewport: entry.viewport, steps, skipped }),
  };
}

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'recorded';
  } catch {
    return 'recorded';
  }
}

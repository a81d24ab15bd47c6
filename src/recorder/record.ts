// Playwright's own recorder on a browser context (what `npx playwright codegen` drives), its actions
// collected as a Recording: `bcs codegen` records this way on a browser it opened, the service on a
// session's browser for the console. The recorder's overlay and toolbar draw inside the page, so whoever
// gives the page real input (a person at the window, the live view) is recorded.
import type { BrowserContext, Page } from 'playwright-core';
import { Recording, type RecordedAction, type RecordedSignal } from './translate.js';

/** The recorder holds a left click (and a navigation) this long, waiting for what it causes, before emitting it. */
export const RECORDER_BUFFER_MS = 500;

interface RecorderSink {
  actionAdded?(page: Page, action: unknown, code: string): void;
  actionUpdated?(page: Page, action: unknown, code: string): void;
  signalAdded?(page: Page, signal: RecordedSignal, code: string): void;
}
/** Playwright's programmatic recorder (what its own tools drive); not in its public types. */
interface RecordingContext {
  _startRecording(params: { language: string }, sink: RecorderSink): Promise<void>;
  _stopRecording(): Promise<void>;
}

export interface ContextRecorder {
  readonly recording: Recording;
  /** Lets out a click the recorder still holds, then stops it (its toolbar leaves the page). */
  stop(): Promise<void>;
}

/**
 * Starts the recorder on `context`; `changed` is called after each change to the recording, from
 * Playwright's event dispatch (so it must not throw).
 */
export async function recordContext(context: BrowserContext, changed: () => void): Promise<ContextRecorder> {
  const recording = new Recording();
  // The jsonl generator writes one action per line; the first line is the action.
  const line = (code: string) => JSON.parse(code.split('\n')[0] ?? '{}') as RecordedAction;
  const record = (change: () => void) => {
    change();
    changed();
  };
  await (context as unknown as RecordingContext)._startRecording(
    { language: 'jsonl' },
    {
      actionAdded: (_p, _a, code) => record(() => recording.added(line(code))),
      actionUpdated: (_p, _a, code) => record(() => recording.updated(line(code))),
      signalAdded: (_p, signal) => record(() => recording.signal(signal)),
    },
  );
  // The recorder does not say when a page closes; the client does, with the page's guid the recorder uses.
  let stopped = false;
  const watchClose = (p: Page) =>
    p.once('close', () => {
      if (stopped || context.pages().length === 0) return;
      record(() => recording.added({ name: 'closePage', pageGuid: (p as unknown as { _guid: string })._guid }));
    });
  context.pages().forEach(watchClose);
  context.on('page', watchClose);
  return {
    recording,
    async stop() {
      if (stopped) return;
      await new Promise((r) => setTimeout(r, RECORDER_BUFFER_MS + 100));
      await (context as unknown as RecordingContext)._stopRecording().catch(() => {});
      stopped = true;
    },
  };
}

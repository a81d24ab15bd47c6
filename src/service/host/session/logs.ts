// The `supervisor` sources of the logs stream: per session, Chromium's stderr and the service's own
// events about the session, each a bounded buffer of lines that a stream first replays and then follows.
// Buffers live as long as their session; the chromium one is fed from the launcher's stderr pipe.
import type { LiveSession } from './types.js';
import { expectedExit } from './restart.js';

export interface LogLine {
  message: string;
  /** RFC 3339, when the line was received. */
  timestamp: string;
}

export interface LogFollower {
  line(line: LogLine): void;
  /** The session ended: no more lines will come. */
  end(): void;
}

const MAX_LINES = 2000;
const MAX_BYTES = 512 * 1024;
/** A line longer than this is cut into several (a runaway minified dump must not pin memory). */
export const MAX_LINE_CHARS = 16 * 1024;

/** Lines of one source: appended whole or as raw chunks that are split on newlines. */
export class LineLog {
  private readonly lines: LogLine[] = [];
  private bytes = 0;
  private partial = '';
  private readonly followers = new Set<LogFollower>();
  private ended = false;

  /** Appends raw output; a trailing partial line waits for its newline. */
  write(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > MAX_LINE_CHARS) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const part of parts) this.append(part);
  }

  append(message: string): void {
    if (this.ended) return;
    for (let i = 0; i === 0 || i < message.length; i += MAX_LINE_CHARS) {
      const line = { message: message.slice(i, i + MAX_LINE_CHARS), timestamp: new Date().toISOString() };
      this.lines.push(line);
      this.bytes += line.message.length;
      for (const f of this.followers) f.line(line);
    }
    while (this.lines.length > MAX_LINES || (this.bytes > MAX_BYTES && this.lines.length > 1)) {
      this.bytes -= this.lines.shift()!.message.length;
    }
  }

  /** What is buffered now, and subscribes `follower` to what comes next (unless `follow` is false). */
  follow(follower: LogFollower, follow: boolean): { backlog: LogLine[]; stop: () => void } {
    const backlog = [...this.lines];
    if (!follow || this.ended) {
      queueMicrotask(() => follower.end());
      return { backlog, stop: () => {} };
    }
    this.followers.add(follower);
    return { backlog, stop: () => this.followers.delete(follower) };
  }

  end(): void {
    if (this.ended) return;
    if (this.partial) this.append(this.partial);
    this.partial = '';
    this.ended = true;
    for (const f of this.followers) f.end();
    this.followers.clear();
  }
}

export type SupervisorProcess = 'chromium' | 'service';
export const SUPERVISOR_PROCESSES: readonly SupervisorProcess[] = ['chromium', 'service'];

interface SessionBuffers {
  chromium: LineLog;
  service: LineLog;
  ended: Promise<void>;
  /** Stops reading the current Chromium's stderr (a restart reads the new one's). */
  unsubscribe: () => void;
}

export class SessionLogs {
  private readonly sessions = new Map<string, SessionBuffers>();

  /** A session start hook: buffers from the first byte Chromium wrote, until the session ends. */
  readonly onSessionStart = (session: LiveSession): void => {
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    const buffers: SessionBuffers = { chromium: new LineLog(), service: new LineLog(), ended, unsubscribe: () => {} };
    this.sessions.set(session.id, buffers);
    this.follow(session, buffers);
    this.service(session.id, `session started: chromium pid ${session.chromium.pid}, ${session.screen ? `display ${session.screen.display}` : 'headless'}`);
    session.cleanups.push(() => {
      this.service(session.id, 'session ending');
      buffers.unsubscribe();
      buffers.chromium.end();
      buffers.service.end();
      this.sessions.delete(session.id);
      markEnded();
    });
  };

  /** A restart hook: the new Chromium's stderr goes on in the same log. */
  readonly onRestart = (session: LiveSession, reason: string): void => {
    const buffers = this.sessions.get(session.id);
    if (!buffers) return;
    buffers.unsubscribe();
    this.service(session.id, `chromium restarted (${reason}): pid ${session.chromium.pid}`);
    this.follow(session, buffers);
  };

  /** Reads the session's current Chromium's stderr into its log, and says how it exited. */
  private follow(session: LiveSession, buffers: SessionBuffers): void {
    const { chromium } = session;
    // The launcher kept the start of stderr (the DevTools line and anything before it); the pipe has more.
    buffers.chromium.write(chromium.stderrTail());
    buffers.unsubscribe = chromium.onStderr((chunk) => buffers.chromium.write(chunk));
    void chromium.exited.then((info) => {
      const how = info.signal ? `killed by ${info.signal}` : `exited with code ${info.code}`;
      this.service(session.id, `chromium (pid ${chromium.pid}) ${how}${expectedExit(session, chromium) ? '' : ' unexpectedly'}`);
    });
  }

  /** Appends a line to the session's service log; a no-op once the session is gone. */
  service(sessionId: string, message: string): void {
    this.sessions.get(sessionId)?.service.append(message);
  }

  log(sessionId: string, process: SupervisorProcess): LineLog | undefined {
    return this.sessions.get(sessionId)?.[process];
  }

  /** Resolves when the session ends (at once for one that is not running). */
  whenEnded(sessionId: string): Promise<void> {
    return this.sessions.get(sessionId)?.ended ?? Promise.resolve();
  }
}

// A session's screen, live: JPEG frames over a WebSocket drawn on a canvas, and (when the server says the
// view is interactive) the mouse, wheel, keys and pastes sent back in the frame's pixel coordinates.
// The token in the socket's URL is the session's live-view credential, never the API key.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LiveMessage, LiveServerMessage, LiveViewMode } from '../api/types.js';

interface State {
  phase: 'connecting' | 'open' | 'ended' | 'closed';
  mode?: LiveViewMode;
  headless?: boolean;
  size?: { width: number; height: number };
  frames: number;
  rttMs?: number;
  error?: string;
}

/** About 30 moves a second: smooth enough to hover, few enough not to queue up behind frames. */
const MOVE_INTERVAL_MS = 33;
const PING_INTERVAL_MS = 2000;
const BUTTONS = ['left', 'middle', 'right'] as const;

export function liveSocketUrl(loc: Pick<Location, 'protocol' | 'host'>, sessionId: string, token: string): string {
  const scheme = loc.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${loc.host}/browsers/${encodeURIComponent(sessionId)}/live?token=${encodeURIComponent(token)}`;
}

export function LiveView({ sessionId, token }: { sessionId: string; token: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const socket = useRef<WebSocket | null>(null);
  const [state, setState] = useState<State>({ phase: 'connecting', frames: 0 });
  const [attempt, setAttempt] = useState(0);
  const update = (patch: Partial<State> | ((s: State) => Partial<State>)) => setState((s) => ({ ...s, ...(typeof patch === 'function' ? patch(s) : patch) }));

  useEffect(() => {
    const ws = new WebSocket(liveSocketUrl(location, sessionId, token));
    ws.binaryType = 'blob';
    socket.current = ws;
    setState({ phase: 'connecting', frames: 0 });
    const draw = frameDrawer(() => canvas.current, (size) => update((s) => ({ size, frames: s.frames + 1 })));
    let pinger: ReturnType<typeof setInterval> | undefined;
    const ping = () => sendJson(ws, { type: 'ping', t: performance.now() });
    ws.onopen = () => {
      update({ phase: 'open' });
      ping();
      pinger = setInterval(ping, PING_INTERVAL_MS);
    };
    ws.onmessage = (e: MessageEvent<Blob | string>) => {
      if (typeof e.data !== 'string') return draw(e.data);
      let msg: LiveServerMessage;
      try {
        msg = JSON.parse(e.data) as LiveServerMessage;
      } catch {
        return;
      }
      if (msg.type === 'hello') {
        const c = canvas.current;
        if (c && !c.width) Object.assign(c, { width: msg.width, height: msg.height });
        update({ mode: msg.mode, headless: msg.headless, size: { width: msg.width, height: msg.height } });
      } else if (msg.type === 'error') update({ error: msg.message });
      else if (msg.type === 'ended') update({ phase: 'ended' });
      else if (msg.type === 'pong') update({ rttMs: Math.round(performance.now() - msg.t) });
    };
    ws.onclose = (e) => {
      clearInterval(pinger);
      // A socket refused at the upgrade tells the page nothing but that it closed: say what that usually means.
      const refused = 'the live view could not connect: the link is not valid, or the session has ended';
      update((s) => ({ phase: s.phase === 'ended' ? 'ended' : 'closed', error: s.error ?? (e.reason || (s.mode ? undefined : refused)) }));
    };
    return () => {
      clearInterval(pinger);
      socket.current = null;
      // Detached first: this socket's late close or frame must not land on the next connection's state.
      ws.onopen = ws.onmessage = ws.onclose = null;
      draw.stop();
      ws.close();
    };
  }, [sessionId, token, attempt]);

  const interactive = state.mode === 'interactive' && state.phase === 'open';
  const input = useInput(canvas, socket, interactive);

  return (
    <div class="live-view">
      <div class="live-status" role="status">
        <span class={`status ${state.phase === 'open' ? 'ok' : 'ended'}`}>{phaseText(state)}</span>
        {state.mode === 'view' && <span class="badge">view only</span>}
        {state.mode === 'interactive' && <span class="badge">interactive</span>}
        {state.headless !== undefined && <span>{state.headless ? 'headless' : 'headful'}</span>}
        {state.size && <span>{state.size.width}×{state.size.height}</span>}
        <span data-frames={state.frames}>{state.frames === 1 ? '1 frame' : `${state.frames} frames`}</span>
        {state.rttMs !== undefined && <span>round trip {state.rttMs} ms</span>}
        {state.phase === 'closed' && (
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Reconnect
          </button>
        )}
      </div>
      {state.error && (
        <p class="error" role="alert">
          {state.error}
        </p>
      )}
      <canvas ref={canvas} class={interactive ? 'interactive' : ''} tabIndex={interactive ? 0 : -1} {...input} aria-label="The session's screen" />
    </div>
  );
}

function phaseText(s: State): string {
  if (s.phase === 'connecting') return 'connecting…';
  if (s.phase === 'open') return 'live';
  if (s.phase === 'ended') return 'session ended';
  return 'disconnected';
}

function sendJson(ws: WebSocket, msg: LiveMessage): void {
  if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

/**
 * Draws each JPEG as it decodes. Frames arriving during a decode replace one another: only the newest
 * is drawn next, so a slow machine shows a lower frame rate rather than a growing delay.
 */
function frameDrawer(target: () => HTMLCanvasElement | null, drawn: (size: { width: number; height: number }) => void) {
  let pending: Blob | undefined;
  let busy = false;
  let stopped = false;
  const next = async (): Promise<void> => {
    while (pending) {
      const blob = pending;
      pending = undefined;
      try {
        const image = await createImageBitmap(blob);
        const c = stopped ? null : target();
        if (c) {
          if (c.width !== image.width || c.height !== image.height) Object.assign(c, { width: image.width, height: image.height });
          c.getContext('2d')?.drawImage(image, 0, 0);
          drawn({ width: image.width, height: image.height });
        }
        image.close();
      } catch {
        // a frame that does not decode is skipped; the next one replaces it
      }
    }
    busy = false;
  };
  const draw = (blob: Blob) => {
    pending = blob;
    if (busy) return;
    busy = true;
    void next();
  };
  return Object.assign(draw, {
    stop: () => {
      stopped = true;
      pending = undefined;
    },
  });
}

/** The canvas's handlers: input mapped from its CSS box to frame pixels; nothing at all in view-only mode. */
function useInput(canvas: { current: HTMLCanvasElement | null }, socket: { current: WebSocket | null }, interactive: boolean) {
  const lastMove = useRef(0);
  const trailing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  if (!interactive) return {};
  const send = (msg: LiveMessage) => socket.current && sendJson(socket.current, msg);
  const point = (e: MouseEvent) => {
    const c = canvas.current!;
    const box = c.getBoundingClientRect();
    // The drawing is the content box: inside the border (clientLeft/Top), clientWidth by clientHeight.
    const left = box.left + c.clientLeft;
    const top = box.top + c.clientTop;
    const clamp = (v: number, max: number) => Math.min(max - 1, Math.max(0, Math.round(v)));
    return { x: clamp(((e.clientX - left) * c.width) / c.clientWidth, c.width), y: clamp(((e.clientY - top) * c.height) / c.clientHeight, c.height) };
  };
  const button = (e: MouseEvent) => BUTTONS[e.button] ?? 'left';
  return {
    onMouseMove: (e: MouseEvent) => {
      const msg: LiveMessage = { type: 'mouse', action: 'move', ...point(e), button: button(e) };
      clearTimeout(trailing.current);
      const wait = lastMove.current + MOVE_INTERVAL_MS - performance.now();
      if (wait <= 0) {
        lastMove.current = performance.now();
        send(msg);
      } else {
        // The last move of a burst is sent late rather than dropped, so the pointer ends where the mouse did.
        trailing.current = setTimeout(() => {
          lastMove.current = performance.now();
          send(msg);
        }, wait);
      }
    },
    onMouseDown: (e: MouseEvent) => {
      e.preventDefault();
      // Measured before focusing: focus could scroll the canvas, and the event's position is from before.
      const at = point(e);
      canvas.current?.focus({ preventScroll: true });
      clearTimeout(trailing.current);
      send({ type: 'mouse', action: 'down', ...at, button: button(e) });
    },
    onMouseUp: (e: MouseEvent) => {
      e.preventDefault();
      send({ type: 'mouse', action: 'up', ...point(e), button: button(e) });
    },
    onContextMenu: (e: MouseEvent) => e.preventDefault(),
    onWheel: (e: WheelEvent) => {
      e.preventDefault();
      // Lines and pages in pixels: the protocol speaks pixels only.
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? (canvas.current?.height ?? 800) : 1;
      send({ type: 'wheel', ...point(e), delta_x: Math.round(e.deltaX * unit), delta_y: Math.round(e.deltaY * unit) });
    },
    onKeyDown: (e: KeyboardEvent) => {
      // Ctrl/Cmd+V is left to the browser, whose paste event sends the text itself.
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return;
      e.preventDefault();
      send({ type: 'key', action: 'down', key: e.key, code: e.code });
    },
    onKeyUp: (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v') return;
      e.preventDefault();
      send({ type: 'key', action: 'up', key: e.key, code: e.code });
    },
    onPaste: (e: ClipboardEvent) => {
      e.preventDefault();
      const text = e.clipboardData?.getData('text/plain');
      if (text) send({ type: 'text', text });
    },
  };
}

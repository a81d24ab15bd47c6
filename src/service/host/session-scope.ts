// What lower layers (fs watches, process tables) need of a live session: its id, a place to register
// what must end with it, and whether it is ending. LiveSession (session/types.ts) is one; depending on
// this rather than on the session folder keeps the folders layered one way.
export interface SessionScope {
  readonly id: string;
  /** Run when the session ends, before Chromium is killed. */
  readonly cleanups: Array<() => Promise<void> | void>;
  /** Set once the session began ending. */
  readonly ending?: Promise<void>;
}

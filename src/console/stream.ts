// Following a server-sent event stream from a page: its frames (the newest `keep`), and how it ended.
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from './api.js';
import { useApi } from './ui.js';

export interface Followed<T> {
  frames: T[];
  error: string | undefined;
  /** The server closed the stream (the session ended, or a non-following stream was read to its end). */
  ended: boolean;
}

export function useStream<T>(path: string | null, keep = 500): Followed<T> {
  const api = useApi();
  const [state, setState] = useState<Followed<T>>({ frames: [], error: undefined, ended: false });
  useEffect(() => {
    setState({ frames: [], error: undefined, ended: false });
    if (!path) return;
    const abort = new AbortController();
    // Frames come in bursts (a backlog first): batched into one render per animation frame.
    let batch: T[] = [];
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const add = batch;
      batch = [];
      setState((s) => ({ ...s, frames: [...s.frames, ...add].slice(-keep) }));
    };
    api
      .stream(path, (frame) => {
        batch.push(frame as T);
        if (!scheduled) {
          scheduled = true;
          requestAnimationFrame(flush);
        }
      }, abort.signal)
      .then(
        () => !abort.signal.aborted && setState((s) => ({ ...s, ended: true })),
        (err: unknown) => !abort.signal.aborted && setState((s) => ({ ...s, error: messageOf(err), ended: true })),
      );
    return () => abort.abort();
  }, [api, path, keep]);
  return state;
}

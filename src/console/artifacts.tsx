// A run's artifacts in the page. They are served only with the key, in the Authorization header, which an
// <img>, <video> or <a href> cannot send: each is fetched through the API and shown from a blob: URL the page
// made (the policy's img-src and media-src allow blob:, and nothing of the service's origin is linked bare).
import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from './api.js';
import { ErrorBox, duration, useApi } from './ui.js';

/**
 * The API path of an artifact URL the service gave. The console speaks only to its own origin, whichever
 * origin the service puts in its answers (a public URL, a cluster's replica).
 */
export function artifactPath(url: string): string {
  const u = new URL(url, location.href);
  return `${u.pathname}${u.search}`;
}

/** An object URL of `path`'s bytes (undefined until fetched), revoked when the component goes. */
function useBlobUrl(path: string): { url: string | undefined; error: string | undefined } {
  const api = useApi();
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    let made: string | undefined;
    setUrl(undefined);
    setError(undefined);
    api.blob(path).then(
      (blob) => {
        if (!live) return;
        made = URL.createObjectURL(blob);
        setUrl(made);
      },
      (err: unknown) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [api, path]);
  return { url, error };
}

export function Screenshot({ path, name }: { path: string; name: string }) {
  const { url, error } = useBlobUrl(path);
  return (
    <figure class="shot">
      <ErrorBox error={error} />
      {url ? <img src={url} alt={name} /> : !error && <p class="muted">Loading {name}…</p>}
      <figcaption>{name}</figcaption>
    </figure>
  );
}

/** A file to save (a trace, a log): fetched when asked for, so a page of many results loads none it is not asked for. */
export function Download({ path, name, label }: { path: string; name: string; label?: string }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const save = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const url = URL.createObjectURL(await api.blob(path));
      const a = document.createElement('a');
      a.href = url;
      a.download = name.split('/').pop() || 'artifact';
      a.click();
      // The download has taken the bytes by the time a minute has passed; revoking at once can cancel it.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="download">
      <button type="button" class="link" disabled={busy} onClick={save}>
        {label ?? name}
      </button>
      {error && <span class="error">{error}</span>}
    </span>
  );
}

export interface ReplayMarker {
  name: string;
  offset_ms: number;
}

/**
 * A result's replay video, playing from `startMs` (the failing step's marker) once it has loaded, with its
 * markers as chapters that seek it.
 */
export function ReplayVideo({ path, name, startMs, markers }: { path: string; name: string; startMs?: number | null | undefined; markers: ReplayMarker[] }) {
  const { url, error } = useBlobUrl(path);
  const video = useRef<HTMLVideoElement>(null);
  const seek = (ms: number) => {
    if (video.current) video.current.currentTime = ms / 1000;
  };
  return (
    <div class="replay">
      <ErrorBox error={error} />
      {url ? (
        <video ref={video} src={url} controls preload="auto" onLoadedMetadata={() => startMs != null && seek(startMs)} />
      ) : (
        !error && <p class="muted">Loading the video…</p>
      )}
      {url && (
        <p>
          <a href={url} download={name.split('/').pop()}>
            Download the video
          </a>
        </p>
      )}
      {markers.length > 0 && (
        <ol class="markers">
          {markers.map((m, i) => (
            <li key={`${i}-${m.offset_ms}`}>
              <button type="button" class="link" disabled={!url} onClick={() => seek(m.offset_ms)}>
                {duration(m.offset_ms)} — {m.name}
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

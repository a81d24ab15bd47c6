// A session's replays: each one's video, fetched with the key (a <video src> could not send the header)
// and played from an object URL, with its markers as chapters that seek the video.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Marker, ReplayView } from '../../api/types.js';
import { messageOf, seg, type Api } from '../api.js';
import { href } from '../router.js';
import { ErrorBox, Section, Table, useApi, useLoad, when, type Column } from '../ui.js';

export function ReplaysPage({ sessionId }: { sessionId: string }) {
  const path = `/browsers/${seg(sessionId)}/replays`;
  // Polled only while one records: each read is an event in the session's own telemetry.
  const [recording, setRecording] = useState(true);
  const load = async (api: Api) => {
    const list = await api.get<ReplayView[]>(path);
    setRecording(list.some((r) => !r.finished_at));
    return list;
  };
  const { data, error } = useLoad(load, path, recording ? 3000 : undefined);
  const [open, setOpen] = useState<string>();
  const columns: Column<ReplayView>[] = [
    {
      title: 'Replay',
      cell: (r) => (
        <button type="button" class="link" onClick={() => setOpen(r.replay_id)} disabled={!r.finished_at}>
          {r.replay_id}
        </button>
      ),
    },
    { title: 'Started', cell: (r) => when(r.started_at) },
    { title: 'Finished', cell: (r) => (r.finished_at ? when(r.finished_at) : 'recording…') },
    { title: 'Length', cell: (r) => (r.duration_ms == null ? '' : seconds(r.duration_ms)) },
    { title: 'Markers', cell: (r) => String(r.markers?.length ?? 0) },
    { title: 'End', cell: (r) => r.end_reason?.replace(/_/g, ' ') ?? '' },
  ];
  const replay = data?.find((r) => r.replay_id === open);
  return (
    <Section title="Replays" error={error} actions={<a href={href('sessions', sessionId)}>Back to the session</a>}>
      <Table rows={data} columns={columns} empty="No replays of this session." rowKey={(r) => r.replay_id} />
      {replay && <Player key={replay.replay_id} sessionId={sessionId} replay={replay} />}
    </Section>
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function Player({ sessionId, replay }: { sessionId: string; replay: ReplayView }) {
  const api = useApi();
  const video = useRef<HTMLVideoElement>(null);
  const [url, setUrl] = useState<string>();
  const [error, setError] = useState<string>();
  const base = `/browsers/${seg(sessionId)}/replays/${seg(replay.replay_id)}`;
  const { data: markers, error: markerError } = useLoad((a) => a.get<Marker[]>(`${base}/markers`), base);

  useEffect(() => {
    let objectUrl: string | undefined;
    let live = true;
    api.blob(base).then(
      (blob) => {
        if (!live) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      },
      (err: unknown) => live && setError(messageOf(err)),
    );
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [api, base]);

  const seek = (m: Marker) => {
    const v = video.current;
    if (!v) return;
    // Seeking only: a paused video stays paused on the marker's frame, a playing one plays on from it.
    v.currentTime = m.offset_ms / 1000;
  };
  return (
    <section class="player">
      <h3>Replay {replay.replay_id}</h3>
      <ErrorBox error={error ?? markerError} />
      {url ? (
        <>
          <video ref={video} src={url} controls preload="auto" />
          <p>
            <a href={url} download={`${replay.replay_id}.mp4`}>
              Download MP4
            </a>
          </p>
        </>
      ) : (
        !error && <p class="muted">Loading the video…</p>
      )}
      <h4>Markers</h4>
      {markers && markers.length === 0 && <p class="muted">No markers.</p>}
      <ol class="markers">
        {(markers ?? []).map((m, i) => (
          <li key={`${i}-${m.offset_ms}`}>
            <button type="button" class="link" onClick={() => seek(m)} disabled={!url}>
              {seconds(m.offset_ms)} — {m.name}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

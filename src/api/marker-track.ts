// A recording's markers as the players read them: each marker spans from its offset to the next one's (the
// last to the end of the video), as WebVTT cues. The body of `GET .../replays/{id}/markers.vtt` (our
// extension), written here once for the service and for a runner that keeps the markers itself because its
// target has none.

/** A named point on a video's timeline. */
export interface TrackMarker {
  name: string;
  offset_ms: number;
}

/** Each marker from its offset to the next marker's, the last one to the end of the video, in time order. */
export function markerSpans(markers: TrackMarker[], endMs: number): Array<{ name: string; start: number; end: number }> {
  const sorted = [...markers].sort((a, b) => a.offset_ms - b.offset_ms);
  return sorted.map((m, i) => ({
    name: m.name,
    start: m.offset_ms,
    end: Math.max(m.offset_ms, i + 1 < sorted.length ? sorted[i + 1]!.offset_ms : endMs),
  }));
}

/** A WebVTT document with one cue per marker, numbered in time order. */
export function markersVtt(markers: TrackMarker[], endMs: number): string {
  const cues = markerSpans(markers, endMs).map((s, i) => `${i + 1}\n${vttTime(s.start)} --> ${vttTime(s.end)}\n${escapeVtt(s.name)}\n`);
  return ['WEBVTT\n', ...cues].join('\n');
}

function vttTime(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

/** Cue text is HTML-like: `&` and `<` would start entities and tags, and `-->` would end the timing line. */
function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

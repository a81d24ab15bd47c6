// Replays (video recordings of a session) and their markers, as the wire shows them (/browsers/{id}/replays).
// The hosted replay object has replay_id, started_at, finished_at and replay_view_url; the rest is ours.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime, ours } from './common.js';

// What requests send.

export const MAX_REPLAY_SECONDS = 3600;

/** `POST /browsers/{id}/replays`. */
export const replayStartParams = {
  type: 'object',
  additionalProperties: false,
  properties: {
    framerate: { type: 'integer', minimum: 1, maximum: 30, default: 25 },
    max_duration_in_seconds: { type: 'integer', minimum: 1, maximum: MAX_REPLAY_SECONDS, default: MAX_REPLAY_SECONDS },
    record_audio: { type: 'boolean' },
  },
} as const;

/** `POST .../replays/{replay_id}/markers`: at the current offset, or at `offset_ms` or `timestamp`. */
export const markerCreateParams = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    // Control characters would break the VTT cue and the chapter metadata lines.
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
    timestamp: { type: 'string', minLength: 1, maxLength: 64 },
    offset_ms: { type: 'integer', minimum: 0 },
  },
} as const;

export type MarkerInput = FromSchema<typeof markerCreateParams>;

// What answers carry.

/** A named point in a recording (our extension). */
export const marker = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'offset_ms', 'created_at'],
  properties: {
    name: { type: 'string' },
    offset_ms: { type: 'integer', description: 'Milliseconds from the start of the video' },
    created_at: { ...dateTime, description: 'When the marker was added' },
  },
} as const;
export type Marker = FromSchema<typeof marker>;

export const replayEndReason = ours({
  type: 'string',
  enum: ['stopped', 'max_duration', 'session_ended', 'recorder_exited', 'service_restart'],
  description: 'Our extension: why the recording ended (set once it has finished)',
});

export const replay = {
  type: 'object',
  additionalProperties: false,
  required: ['replay_id', 'started_at', 'finished_at', 'replay_view_url', 'duration_ms', 'markers'],
  properties: {
    replay_id: { type: 'string' },
    started_at: dateTime,
    finished_at: { type: ['string', 'null'], format: 'date-time', description: 'null while it records' },
    replay_view_url: { type: 'string', description: "This replay's URL: a GET of it answers the MP4 video" },
    duration_ms: ours({
      type: ['integer', 'null'],
      description: 'Our extension: the length of the video, or recorded so far while it records; null when unknown',
    }),
    markers: ours({ type: 'array', items: marker, description: 'Our extension: its markers in time order' }),
    end_reason: replayEndReason,
    end_detail: ours({ type: 'string', description: 'Our extension: what ended it, e.g. `reached max_duration_in_seconds (60)`' }),
  },
} as const;
export type ReplayView = FromSchema<typeof replay>;

// /browsers/{id}/replays: video recordings of a session, with named markers (our extension: the hosted
// SDK's start/list/stop/download work unchanged; markers, markers.vtt, duration_ms are additions).
// Reads work for deleted sessions too: their replays are kept.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { invalidField, notFound, ServiceError } from '../errors.js';
import { type MarkerInput, webvtt } from '../host/recording/index.js';
import { DEFAULT_VIEWPORT } from '../host/session/index.js';
import type { Marker, ReplayRow } from '../store/replays-repo.js';
import { defaultEmptyBody } from './empty-body.js';
import { findSessionRow, liveSession, sessionParams } from './lookup.js';

export const MAX_REPLAY_SECONDS = 3600;

const startBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    framerate: { type: 'integer', minimum: 1, maximum: 30, default: 25 },
    max_duration_in_seconds: { type: 'integer', minimum: 1, maximum: MAX_REPLAY_SECONDS, default: MAX_REPLAY_SECONDS },
    record_audio: { type: 'boolean' },
  },
} as const;

const markerBody = {
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

const replayParams = {
  type: 'object',
  required: ['id', 'replay_id'],
  properties: { ...sessionParams.properties, replay_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

type Params = { id: string };
type ReplayParams = { id: string; replay_id: string };

/** The wire's replay object plus our `duration_ms`, `markers` and (once finished) `end_reason`. */
export interface ReplayView {
  replay_id: string;
  started_at: string;
  finished_at: string | null;
  replay_view_url: string;
  duration_ms: number | null;
  markers: Marker[];
  end_reason?: string;
  end_detail?: string;
}

export function registerReplayRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const manager = ctx.recordings;

  const present = (req: FastifyRequest, row: ReplayRow, markers: Marker[]): ReplayView => {
    const view: ReplayView = {
      replay_id: row.id,
      started_at: row.started_at,
      finished_at: row.finished_at,
      replay_view_url: `${req.protocol}://${req.host}/browsers/${row.browser_id}/replays/${row.id}`,
      duration_ms: row.duration_ms ?? manager.currentOffset(row.id) ?? null,
      markers,
    };
    if (row.end_reason) view.end_reason = row.end_reason;
    if (row.end_detail) view.end_detail = row.end_detail;
    return view;
  };

  /** The replay `replay_id` of the session `id` (deleted sessions included), else 404. */
  const findReplay = (req: FastifyRequest<{ Params: ReplayParams }>): ReplayRow => {
    const session = findSessionRow(ctx.browsers, req, req.params.id, true);
    const row = ctx.replays.get(req.params.replay_id);
    if (!row || row.browser_id !== session.id) throw notFound('replay', req.params.replay_id);
    return row;
  };

  app.post<{ Params: Params; Body: { framerate: number; max_duration_in_seconds: number; record_audio?: boolean } }>(
    '/browsers/:id/replays',
    { schema: { params: sessionParams, body: startBody }, preValidation: defaultEmptyBody },
    async (req) => {
      if (req.body.record_audio) {
        throw invalidField('body.record_audio', 'audio recording is not supported here');
      }
      const session = liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const viewport = findSessionRow(ctx.browsers, req, session.id).viewport ?? DEFAULT_VIEWPORT;
      const row = await manager.start(session, {
        framerate: req.body.framerate,
        maxDurationS: req.body.max_duration_in_seconds,
        viewport: { width: viewport.width, height: viewport.height },
      });
      return present(req, row, []);
    },
  );

  app.get<{ Params: Params }>('/browsers/:id/replays', { schema: { params: sessionParams } }, async (req) => {
    const session = findSessionRow(ctx.browsers, req, req.params.id, true);
    ctx.sessions.touch(session.id);
    const markers = ctx.replays.markersByReplay(session.id);
    return ctx.replays.listForBrowser(session.id).map((row) => present(req, row, markers.get(row.id) ?? []));
  });

  // The SDK's stop expects no body; the finished replay is returned for clients that want it.
  app.post<{ Params: ReplayParams }>('/browsers/:id/replays/:replay_id/stop', { schema: { params: replayParams } }, async (req) => {
    const row = findReplay(req);
    ctx.sessions.touch(row.browser_id);
    const finished = (await manager.stop(row.id)) ?? row;
    return present(req, finished, ctx.replays.markers(row.id));
  });

  app.get<{ Params: ReplayParams }>('/browsers/:id/replays/:replay_id', { schema: { params: replayParams } }, async (req, reply) => {
    const row = findReplay(req);
    ctx.sessions.touch(row.browser_id);
    reply.header('x-recording-started-at', row.started_at);
    if (!row.finished_at || manager.isRecording(row.id)) {
      // As the hosted in-VM recorder answers: not ready yet, ask again shortly.
      return reply
        .code(202)
        .header('retry-after', '1')
        .send({ code: 'recording_in_progress', message: `replay '${row.id}' is still recording; stop it, then download it` });
    }
    reply.header('x-recording-finished-at', row.finished_at);
    return sendVideo(req, reply, manager.videoPath(row.id), row.id);
  });

  app.post<{ Params: ReplayParams; Body: MarkerInput }>(
    '/browsers/:id/replays/:replay_id/markers',
    { schema: { params: replayParams, body: markerBody } },
    async (req) => {
      const row = findReplay(req);
      ctx.sessions.touch(row.browser_id);
      return manager.addMarker(row.id, req.body, 'body');
    },
  );

  app.get<{ Params: ReplayParams }>('/browsers/:id/replays/:replay_id/markers', { schema: { params: replayParams } }, async (req) => {
    return ctx.replays.markers(findReplay(req).id);
  });

  app.get<{ Params: ReplayParams }>(
    '/browsers/:id/replays/:replay_id/markers.vtt',
    { schema: { params: replayParams } },
    async (req, reply) => {
      const row = findReplay(req);
      const end = row.duration_ms ?? manager.currentOffset(row.id) ?? 0;
      return reply.type('text/vtt; charset=utf-8').send(webvtt(ctx.replays.markers(row.id), end));
    },
  );
}

/** Serves the MP4, honouring a single `Range` so players can seek in it. */
async function sendVideo(req: FastifyRequest, reply: FastifyReply, file: string, id: string): Promise<FastifyReply> {
  const info = await stat(file).catch(() => undefined);
  if (!info) throw new ServiceError(404, 'not_found', `the video of replay '${id}' is missing from the data dir`);
  reply.type('video/mp4').header('accept-ranges', 'bytes');
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (range && (range[1] || range[2])) {
    const size = info.size;
    const start = range[1] ? Number(range[1]) : Math.max(0, size - Number(range[2]));
    const end = range[1] && range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    if (start >= size || start > end) {
      return reply.code(416).header('content-range', `bytes */${size}`).send();
    }
    reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`).header('content-length', end - start + 1);
    return reply.send(createReadStream(file, { start, end }));
  }
  reply.header('content-length', info.size);
  return reply.send(createReadStream(file));
}

// /browsers/{id}/replays: video recordings of a session, with named markers (our extension: the hosted
// SDK's start/list/stop/download work unchanged; markers, markers.vtt, duration_ms are additions).
// Reads work for deleted sessions too: their replays are kept.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { markersVtt } from '../../api/marker-track.js';
import { dateTime, extensionRoute } from '../../api/schemas/common.js';
import { marker, markerCreateParams, replay, replayStartParams, type Marker, type ReplayView } from '../../api/schemas/replays.js';
import type { ServiceContext } from '../context.js';
import { invalidField, notFound, ServiceError } from '../errors.js';
import { DEFAULT_VIEWPORT } from '../host/session/index.js';
import type { ReplayRow } from '../store/replays-repo.js';
import { defaultEmptyBody } from './empty-body.js';
import { findSessionRow, liveSession, sessionParams } from './lookup.js';
import { content, noBody, ok } from './responses.js';

const startBody = replayStartParams;
const markerBody = markerCreateParams;

const replayParams = {
  type: 'object',
  required: ['id', 'replay_id'],
  properties: { ...sessionParams.properties, replay_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

type Params = FromSchema<typeof sessionParams>;
type ReplayParams = FromSchema<typeof replayParams>;

const replayList = { type: 'array', items: replay } as const;
const markerList = { type: 'array', items: marker } as const;

const mp4 = { type: 'string', format: 'binary' } as const;
const recordedAt = {
  'X-Recording-Started-At': { ...dateTime, description: 'When the recording started' },
} as const;
const videoHeaders = {
  ...recordedAt,
  'X-Recording-Finished-At': { ...dateTime, description: 'When the recording finished' },
  'Accept-Ranges': { type: 'string', const: 'bytes' },
} as const;

/** The download's answers: the whole video, the part a `Range` asked for, or "not ready yet". */
const videoResponses = {
  200: { description: 'The MP4 video', headers: videoHeaders, content: { 'video/mp4': { schema: mp4 } } },
  202: {
    description: 'Still recording: stop it, then ask again (the hosted recorder answers the same)',
    headers: { ...recordedAt, 'Retry-After': { type: 'integer', description: 'Seconds to wait: 1' } },
    type: 'object',
    additionalProperties: false,
    required: ['code', 'message'],
    properties: { code: { type: 'string', const: 'recording_in_progress' }, message: { type: 'string' } },
  },
  206: {
    description: 'The byte range a single `Range: bytes=start-end` (or `bytes=start-`, `bytes=-suffix`) asked for',
    headers: { ...videoHeaders, 'Content-Range': { type: 'string', description: '`bytes start-end/size`' } },
    content: { 'video/mp4': { schema: mp4 } },
  },
  416: {
    description: 'The range starts past the end of the video, or ends before it starts; no body',
    type: 'null',
    headers: { 'Content-Range': { type: 'string', description: '`bytes */size`' } },
  },
} as const;

/** Request headers the download reads itself (documented only, not validated). */
const rangeHeader = {
  openapi: {
    headers: {
      type: 'object',
      properties: {
        Range: { type: 'string', description: 'One byte range, `bytes=start-end`, `bytes=start-` or `bytes=-suffix`; others are ignored' },
      },
    },
  },
} as const;

export function registerReplayRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const manager = ctx.recordings;

  const present = (req: FastifyRequest, row: ReplayRow, markers: Marker[]): ReplayView => {
    const view: ReplayView = {
      replay_id: row.id,
      started_at: row.started_at,
      finished_at: row.finished_at,
      replay_view_url: `${ctx.origins.http(req)}/browsers/${row.browser_id}/replays/${row.id}`,
      duration_ms: row.duration_ms ?? manager.currentOffset(row.id) ?? null,
      markers,
    };
    if (row.end_reason) view.end_reason = row.end_reason;
    if (row.end_detail) view.end_detail = row.end_detail;
    return view;
  };

  /** The replay `replay_id` of the session `id` (deleted sessions included), else 404. */
  const findReplay = async (req: FastifyRequest<{ Params: ReplayParams }>): Promise<ReplayRow> => {
    const session = await findSessionRow(ctx.browsers, req, req.params.id, true);
    const row = await ctx.replays.get(req.params.replay_id);
    if (!row || row.browser_id !== session.id) throw notFound('replay', req.params.replay_id);
    return row;
  };

  app.post<{ Params: Params; Body: FromSchema<typeof startBody> }>(
    '/browsers/:id/replays',
    {
      schema: { params: sessionParams, body: startBody, response: ok('The replay, recording', replay) },
      preValidation: defaultEmptyBody,
    },
    async (req) => {
      if (req.body.record_audio) {
        throw invalidField('body.record_audio', 'audio recording is not supported here');
      }
      const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const viewport = (await findSessionRow(ctx.browsers, req, session.id)).viewport ?? DEFAULT_VIEWPORT;
      const row = await manager.start(session, {
        framerate: req.body.framerate,
        maxDurationS: req.body.max_duration_in_seconds,
        viewport: { width: viewport.width, height: viewport.height },
      });
      return present(req, row, []);
    },
  );

  const listSchema = { params: sessionParams, response: ok("The session's replays, oldest first", replayList) };
  app.get<{ Params: Params }>('/browsers/:id/replays', { schema: listSchema }, async (req) => {
    const session = await findSessionRow(ctx.browsers, req, req.params.id, true);
    ctx.sessions.touch(session.id);
    const [markers, rows] = await Promise.all([ctx.replays.markersByReplay(session.id), ctx.replays.listForBrowser(session.id)]);
    return rows.map((row) => present(req, row, markers.get(row.id) ?? []));
  });

  // The SDK's stop expects no body; the finished replay is returned for clients that want it.
  app.post<{ Params: ReplayParams }>(
    '/browsers/:id/replays/:replay_id/stop',
    {
      schema: { params: replayParams, response: ok('The finished replay (stopping a finished one changes nothing)', replay) },
      config: noBody,
    },
    async (req) => {
      const row = await findReplay(req);
      ctx.sessions.touch(row.browser_id);
      const finished = (await manager.stop(row.id)) ?? row;
      return present(req, finished, await ctx.replays.markers(row.id));
    },
  );

  app.get<{ Params: ReplayParams }>(
    '/browsers/:id/replays/:replay_id',
    { schema: { params: replayParams, response: videoResponses }, config: rangeHeader },
    async (req, reply) => {
      const row = await findReplay(req);
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
    },
  );

  app.post<{ Params: ReplayParams; Body: FromSchema<typeof markerBody> }>(
    '/browsers/:id/replays/:replay_id/markers',
    { schema: { ...extensionRoute, params: replayParams, body: markerBody, response: ok('The new marker', marker) } },
    async (req) => {
      const row = await findReplay(req);
      ctx.sessions.touch(row.browser_id);
      return manager.addMarker(row.id, req.body, 'body');
    },
  );

  app.get<{ Params: ReplayParams }>(
    '/browsers/:id/replays/:replay_id/markers',
    { schema: { ...extensionRoute, params: replayParams, response: ok('Its markers in time order (ties in the order they were added)', markerList) } },
    async (req) => ctx.replays.markers((await findReplay(req)).id),
  );

  app.get<{ Params: ReplayParams }>(
    '/browsers/:id/replays/:replay_id/markers.vtt',
    {
      schema: {
        ...extensionRoute,
        params: replayParams,
        response: content('Its markers as a WebVTT track: one cue per marker, lasting until the next (or the end)', 'text/vtt', {
          type: 'string',
        }),
      },
    },
    async (req, reply) => {
      const row = await findReplay(req);
      const end = row.duration_ms ?? manager.currentOffset(row.id) ?? 0;
      return reply.type('text/vtt; charset=utf-8').send(markersVtt(await ctx.replays.markers(row.id), end));
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

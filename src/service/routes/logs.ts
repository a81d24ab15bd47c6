// GET /browsers/{id}/logs/stream: log lines over SSE as the hosted API frames them ({event:'log', message,
// timestamp}). `source=path` tails a file of the session's view; `source=supervisor` streams a supervised
// process: `chromium` (its stderr) or `service` (what the service did for this session). A stream replays
// what is there, then follows until the client goes, the session ends, or (follow=false) at once.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { logFrame, type LogFrame } from '../../api/schemas/logs.js';
import type { ServiceContext } from '../context.js';
import { invalidField } from '../errors.js';
import type { HostView } from '../host/fs/index.js';
import { FileTail, SUPERVISOR_PROCESSES, type LogLine, type SupervisorProcess } from '../host/session/index.js';
import { openSse, type SseStream } from '../sse.js';
import { liveSession, sessionParams } from './lookup.js';
import { eventStream } from './responses.js';

const logsQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['source'],
  properties: {
    source: { type: 'string', enum: ['path', 'supervisor'] },
    follow: { type: 'boolean', default: true },
    path: { type: 'string', minLength: 1, maxLength: 4096 },
    supervisor_process: { type: 'string', minLength: 1, maxLength: 64 },
  },
} as const;

/** `follow` has a default, so after validation it is always there. */
type LogsQuery = FromSchema<typeof logsQuery>;

/** A client that reads slower than this much buffered output is cut off rather than held in memory. */
const STREAM_HIGH_WATER = 8 * 1024 * 1024;

export function registerLogRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Params: { id: string }; Querystring: LogsQuery }>(
    '/browsers/:id/logs/stream',
    {
      schema: {
        params: sessionParams,
        querystring: logsQuery,
        response: eventStream('The log lines there are, then (with `follow`) each new one until the session ends', logFrame),
      },
    },
    async (req, reply) => {
      const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const q = req.query;
      if (q.source === 'path') {
        if (q.path === undefined) throw invalidField('querystring.path', 'is required when source is path');
        return streamFile(req, reply, ctx, session.id, session.view, q.path, q.follow);
      }
      if (q.supervisor_process === undefined) throw invalidField('querystring.supervisor_process', 'is required when source is supervisor');
      if (!(SUPERVISOR_PROCESSES as readonly string[]).includes(q.supervisor_process)) {
        throw invalidField('querystring.supervisor_process', `must be one of ${SUPERVISOR_PROCESSES.map((p) => JSON.stringify(p)).join(', ')}`);
      }
      const log = ctx.sessionLogs.log(session.id, q.supervisor_process as SupervisorProcess);
      const sse = openSse(req, reply);
      const send = sender(sse, reply);
      const { backlog, stop } = log
        ? log.follow({ line: send, end: () => sse.close() }, q.follow)
        : { backlog: [], stop: () => sse.close() };
      for (const line of backlog) send(line);
      if (!log) sse.close();
      await sse.closed;
      stop();
    },
  );
}

/** Starts tailing before the stream opens, so a bad or missing path is a plain 4xx rather than an empty stream. */
async function streamFile(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: ServiceContext,
  sessionId: string,
  view: HostView,
  path: string,
  follow: boolean,
): Promise<void> {
  let sse: SseStream | undefined;
  let send: ((line: LogLine) => void) | undefined;
  let ended = false;
  const early: LogLine[] = [];
  const tail = await FileTail.start(view, path, 'querystring.path', follow, {
    line: (message) => {
      const line = { message, timestamp: new Date().toISOString() };
      if (send) send(line);
      else early.push(line);
    },
    end: () => {
      ended = true;
      sse?.close();
    },
  });
  sse = openSse(req, reply);
  send = sender(sse, reply);
  for (const line of early) send(line);
  if (ended) sse.close();
  void ctx.sessionLogs.whenEnded(sessionId).then(() => sse?.close());
  await sse.closed;
  tail.stop();
}

function sender(sse: SseStream, reply: FastifyReply): (line: LogLine) => void {
  return (line) => {
    if (reply.raw.writableLength > STREAM_HIGH_WATER) return sse.close();
    const frame: LogFrame = { event: 'log', message: line.message, timestamp: line.timestamp };
    sse.send(frame);
  };
}

// /browsers/{id}/process/*: run commands on the browser host, as the hosted API does. Where this differs
// (a timeout is 200 with exit_code 124 and timed_out: true; exec output is capped per stream and says so)
// the extra fields are additions, so the hosted SDK reads the responses unchanged.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  SIGNALS,
  execResult,
  processExecParams,
  processKillParams,
  processResizeParams,
  processSpawnParams,
  processStdinParams,
  processOutputFrame,
  processStatus,
  spawnResult,
  stdinResult,
  type ProcessOutputFrame,
  type ProcessStatus,
  type SpawnResult,
  type StdinResult,
} from '../../api/schemas/process.js';
import type { ServiceContext } from '../context.js';
import { invalidField } from '../errors.js';
import { type ProcessRequest, ensureRunning, type SpawnRequest, type OutputSubscriber } from '../host/process/index.js';
import { openSse } from '../sse.js';
import { liveSession, sessionParams } from './lookup.js';
import { defaultEmptyBody } from './empty-body.js';
import { clientGone, keepActive } from './long-requests.js';
import { okResult } from '../../api/schemas/common.js';
import { eventStream, ok } from './responses.js';

const execBody = processExecParams;
const spawnBody = processSpawnParams;
const stdinBody = processStdinParams;
const killBody = processKillParams;
const resizeBody = processResizeParams;

const processParams = {
  type: 'object',
  required: ['id', 'process_id'],
  properties: {
    ...sessionParams.properties,
    process_id: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
  },
} as const;

/** A client reading more slowly than this many bytes behind pauses the process's output. */
const STREAM_HIGH_WATER = 1024 * 1024;
/** While an exec runs or a stream is open, the session counts as active (as an open CDP connection does). */

type SessionRoute = { Params: { id: string } };
type ProcessRoute = { Params: { id: string; process_id: string } };

export function registerProcessRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const registry = ctx.processes;
  const sessionProcs = async (req: FastifyRequest<SessionRoute>) =>
    registry.forSession(await liveSession(ctx.browsers, ctx.sessions, req, req.params.id));
  const find = async (req: FastifyRequest<ProcessRoute>) => (await sessionProcs(req)).get(req.params.process_id);
  const base = '/browsers/:id/process';

  app.post<SessionRoute & { Body: ProcessRequest }>(
    `${base}/exec`,
    { schema: { params: sessionParams, body: execBody, response: ok('What the command did: its exit code and output', execResult) } },
    async (req, reply) => {
      const procs = await sessionProcs(req);
      const stop = keepActive(ctx.sessions, procs.session.id);
      try {
        return await procs.exec(req.body, 'body', clientGone(reply));
      } finally {
        stop();
      }
    },
  );

  app.post<SessionRoute & { Body: SpawnRequest }>(
    `${base}/spawn`,
    { schema: { params: sessionParams, body: spawnBody, response: ok('The started process', spawnResult) } },
    async (req): Promise<SpawnResult> => {
      const proc = await (await sessionProcs(req)).spawn(req.body, 'body');
      return { process_id: proc.id, pid: proc.pid, started_at: proc.startedAt.toISOString() };
    },
  );

  app.get<ProcessRoute>(
    `${base}/:process_id/status`,
    { schema: { params: processParams, response: ok('Whether the process runs, its exit code, and its resource use', processStatus) } },
    async (req): Promise<ProcessStatus> => {
      const { process: proc } = await find(req);
      const usage = await proc.usage();
      return {
        state: proc.running ? 'running' : 'exited',
        ...(proc.running ? {} : { exit_code: proc.exitCode! }),
        ...usage,
      };
    },
  );

  app.post<ProcessRoute & { Body: FromSchema<typeof stdinBody> }>(
    `${base}/:process_id/stdin`,
    { schema: { params: processParams, body: stdinBody, response: ok('How much was written', stdinResult) } },
    async (req): Promise<StdinResult> => {
      const { process: proc } = await find(req);
      ensureRunning(proc, 'write to its stdin');
      const data = Buffer.from(req.body.data_b64, 'base64');
      proc.write(data);
      return { written_bytes: data.length };
    },
  );

  const outputStream = eventStream(
    "The process's output as it comes (after a replay of the most recent output), then its exit",
    processOutputFrame,
  );
  app.get<ProcessRoute>(
    `${base}/:process_id/stdout/stream`,
    { schema: { params: processParams, response: outputStream } },
    async (req, reply) => {
      const procs = await sessionProcs(req);
      const { output } = procs.get(req.params.process_id);
      const sse = openSse(req, reply);
      const send = (frame: ProcessOutputFrame) => sse.send(frame);
      const res = reply.raw;
      const stop = keepActive(ctx.sessions, procs.session.id);
      const sub: OutputSubscriber = {
        write: ({ stream, data }) => {
          send({ stream, data_b64: data.toString('base64') });
          return res.writableLength < STREAM_HIGH_WATER;
        },
        end: (exitCode) => {
          send({ event: 'exit', exit_code: exitCode });
          sse.close();
        },
      };
      const onDrain = () => output.unblock(sub);
      res.on('drain', onDrain);
      const unsubscribe = output.subscribe(sub);
      await sse.closed;
      res.off('drain', onDrain);
      unsubscribe();
      stop();
    },
  );

  app.post<ProcessRoute & { Body: FromSchema<typeof killBody> }>(
    `${base}/:process_id/kill`,
    { schema: { params: processParams, body: killBody, response: ok('Signalled (or already exited)', okResult) }, preValidation: defaultEmptyBody },
    async (req) => {
      const { process: proc } = await find(req);
      // Killing a process that already exited is what the client wanted: ok, idempotently.
      await proc.signal(SIGNALS[req.body.signal]);
      return { ok: true };
    },
  );

  app.post<ProcessRoute & { Body: FromSchema<typeof resizeBody> }>(
    `${base}/:process_id/resize`,
    { schema: { params: processParams, body: resizeBody, response: ok("The process's terminal has the new size", okResult) } },
    async (req) => {
      const { process: proc } = await find(req);
      if (!proc.tty) throw invalidField('process_id', `process ${proc.id} has no PTY (spawn it with allocate_tty: true)`);
      ensureRunning(proc, 'resize its terminal');
      proc.resize(req.body.cols, req.body.rows);
      return { ok: true };
    },
  );
}




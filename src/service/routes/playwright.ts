// /browsers/{id}/playwright/execute: runs the caller's Playwright code against the session's browser, in
// a worker process of its own (see host/playwright/exec.ts). As on the hosted service, whatever the code
// does (returns, throws, times out, crashes its process) is a 200 with success and error; only a bad
// request is a 4xx.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { DEFAULT_TIMEOUT_SEC, playwrightExecuteParams, playwrightExecuteResult } from '../../api/schemas/playwright.js';
import type { ServiceContext } from '../context.js';
import { responseBody } from '../host/playwright/index.js';
import { liveSession, sessionParams } from './lookup.js';
import { clientGone, keepActive } from './long-requests.js';
import { ok } from './responses.js';

const executeBody = playwrightExecuteParams;

/**
 * While code runs (or waits its turn), the session counts as active, as with an open CDP connection;
 * touched well within the shortest inactivity timeout the sweeper may be checking.
 */
const ACTIVITY_EVERY_MS = 250;

type ExecuteRoute = { Params: { id: string }; Body: FromSchema<typeof executeBody> };

export function registerPlaywrightRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const executor = ctx.playwright;

  app.post<ExecuteRoute>(
    '/browsers/:id/playwright/execute',
    { schema: { params: sessionParams, body: executeBody, response: ok('What the code did: returned a value, threw, timed out or crashed', playwrightExecuteResult) } },
    async (req: FastifyRequest<ExecuteRoute>, reply) => {
      const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const stop = keepActive(ctx.sessions, session.id, ACTIVITY_EVERY_MS);
      try {
        const timeoutSec = req.body.timeout_sec ?? DEFAULT_TIMEOUT_SEC;
        const res = await executor.execute(session, { code: req.body.code, timeoutSec }, clientGone(reply));
        return reply.type('application/json; charset=utf-8').send(responseBody(res));
      } finally {
        stop();
      }
    },
  );
}



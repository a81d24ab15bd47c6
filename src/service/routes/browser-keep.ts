// POST /browsers/{id}/keep (ours): keeps a running browser for someone to look at, for at most a day, and
// answers the session with its `kept`. DELETE /browsers/{id} releases it as it ends any session.
import type { FastifyInstance } from 'fastify';
import type { BrowserKeepParams } from '../../api/types.js';
import { browserKeepParams } from '../../api/schemas/browser-keep.js';
import { browserSession } from '../../api/schemas/browsers.js';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { presentSession } from '../host/browsers/index.js';
import { findSessionRow } from './lookup.js';
import { idParams } from './params.js';
import { ok } from './responses.js';

type Req = { Params: { id: string }; Body: BrowserKeepParams };

export function registerBrowserKeepRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<Req>(
    '/browsers/:id/keep',
    {
      schema: {
        ...extensionRoute,
        params: idParams,
        body: browserKeepParams,
        response: ok('The session as kept: `kept.until` is when the service ends it unless it is deleted first', browserSession),
      },
    },
    async (req) => {
      const row = await findSessionRow(ctx.browsers, req, req.params.id);
      await ctx.keeper.keep(row, req.body, req.params.id);
      ctx.sessions.touch(row.id);
      return presentSession(row, ctx.origins.ws(req), ctx);
    },
  );
}

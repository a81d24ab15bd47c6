// Live view links. Every session answer carries an interactive one (`browser_live_view_url`); this route
// also makes the view-only kind, to hand to someone who should watch and not touch. The view itself is a
// WebSocket (`/browsers/{id}/live`, host/live) behind the console's `/live/{id}` page.
import type { FastifyInstance } from 'fastify';
import { liveViewLink, liveViewQuery, type LiveViewLink } from '../../api/schemas/browsers.js';
import type { LiveViewMode } from '../../api/types.js';
import { extensionRoute } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { liveViewPageUrl } from '../host/live/index.js';
import { findSessionRow } from './lookup.js';
import { idParams } from './params.js';
import { ok } from './responses.js';

type Req = { Params: { id: string }; Querystring: { mode: LiveViewMode } };

export function registerLiveViewRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<Req>(
    '/browsers/:id/live_view',
    { schema: { ...extensionRoute, params: idParams, querystring: liveViewQuery, response: ok('A link that opens the live view in the given mode', liveViewLink) } },
    async (req): Promise<LiveViewLink> => {
      const row = await findSessionRow(ctx.browsers, req, req.params.id);
      const session = ctx.sessions.get(row.id);
      if (!session || session.ending) throw notFound('browser', req.params.id);
      const { mode } = req.query;
      return { url: liveViewPageUrl(ctx.tokens, `${req.protocol}://${req.host}`, row.id, mode), mode };
    },
  );
}

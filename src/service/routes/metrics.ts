// GET /metrics: the service's numbers in Prometheus text format (metrics.ts decides what they are). Ours,
// so the hosted wire (strictWire) answers it as an unknown path. It needs a bearer key like every route,
// and an organization-wide one (auth.ts): the numbers cover every project.
import type { FastifyInstance } from 'fastify';
import { extensionRoute } from '../../api/schemas/common.js';
import type { MetricsExposition } from '../metrics.js';
import { content } from './responses.js';

export interface MetricsRouteDeps {
  metrics: MetricsExposition;
}

const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

export function registerMetricsRoutes(app: FastifyInstance, deps: MetricsRouteDeps): void {
  const { metrics } = deps;
  const response = content(
    'Sessions (active, launching: the pending-creates signal), the warm standby, each pool, create durations, creates and ends, and the process (Prometheus text format 0.0.4)',
    metrics.contentType,
    { type: 'string' },
  );
  app.get('/metrics', { schema: { ...extensionRoute, querystring: noQuery, response } }, async (_req, reply) =>
    reply.type(metrics.contentType).send(await metrics.render()),
  );
}

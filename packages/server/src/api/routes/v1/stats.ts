import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const Counts = {
  count: Type.Integer(),
  actions: Type.Object({
    allow: Type.Integer(),
    warn: Type.Integer(),
    flag: Type.Integer(),
    block: Type.Integer(),
  }),
  flagged: Type.Integer(),
  flagRate: Type.Number({ description: 'flagged / count (0 when empty)' }),
  blockRate: Type.Number({ description: 'action block / count (0 when empty)' }),
  latencyP50: Type.Union([Type.Number(), Type.Null()], { description: 'ms, nearest rank; null when empty' }),
  latencyP99: Type.Union([Type.Number(), Type.Null()], { description: 'ms, nearest rank; null when empty' }),
  categories: Type.Record(Type.String(), Type.Integer(), {
    description: 'decisions in which each category triggered',
  }),
};

const Stats = Type.Object({
  from: Type.String({ format: 'date-time' }),
  to: Type.String({ format: 'date-time' }),
  bucket: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')]),
  buckets: Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), ...Counts })),
  totals: Type.Object(Counts),
});

export const statsRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/stats',
      {
        schema: {
          tags: ['decisions'],
          summary: 'Decision statistics over time, computed by the database',
          description:
            'Every bucket from `from` (default: 24 h before `to`) to `to` (default: now), empty ones included; ' +
            '`bucket` defaults to minute for ranges up to two hours, hour up to two days, else day; at most 1000 buckets.',
          querystring: Type.Object(
            {
              from: Type.Optional(Type.String({ format: 'date-time' })),
              to: Type.Optional(Type.String({ format: 'date-time' })),
              bucket: Type.Optional(
                Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')]),
              ),
            },
            { additionalProperties: false },
          ),
          response: { 200: Stats, ...errorResponses(401, 403, 422, 429) },
        },
      },
      async (request) => ctx.stats.get(principalOf(request), request.query as Record<string, unknown>),
    );
  };

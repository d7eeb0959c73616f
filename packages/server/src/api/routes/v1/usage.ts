import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const Usage = Type.Object({
  accountId: Type.String(),
  month: Type.String({ description: 'YYYY-MM (UTC)' }),
  evaluations: Type.Integer({
    description: 'A text, a batch item, an image and a video frame each count one',
  }),
  breakdown: Type.Object({ text: Type.Integer(), image: Type.Integer(), videoFrames: Type.Integer() }),
  costUsd: Type.Number({
    description: 'USD spent on external AI providers this month (0 with the bundled models)',
  }),
  monthlyQuota: Type.Union([Type.Integer(), Type.Null()]),
  remaining: Type.Union([Type.Integer(), Type.Null()]),
  trialEndsAt: Type.Union([Type.String(), Type.Null()]),
});

export const usageRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/usage',
      {
        schema: {
          tags: ['accounts'],
          summary: "Your account's evaluations in a month (default: the current one)",
          querystring: Type.Object({ month: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}$' })) }),
          response: { 200: Usage, ...errorResponses(401, 422, 429) },
        },
      },
      async (request) => ctx.usage.get(principalOf(request), request.query.month),
    );
  };

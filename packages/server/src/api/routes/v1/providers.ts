import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { listProviders } from '../../../domain/provider-health.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const ProviderView = Type.Object({
  name: Type.String(),
  kind: Type.String({ description: 'bundled, openai-moderation, openai-chat-guard or azure-content-safety' }),
  state: Type.String({ description: 'Circuit breaker: closed, open or half_open' }),
  categories: Type.Array(Type.String()),
  contentTypes: Type.Array(Type.String()),
  calls: Type.Integer({ description: 'HTTP calls since start' }),
  failures: Type.Integer(),
  errorRate: Type.Number({ description: 'Share of failed calls among the last 1000' }),
  latencyMs: Type.Object({
    p50: Type.Union([Type.Number(), Type.Null()]),
    p99: Type.Union([Type.Number(), Type.Null()]),
  }),
  since: Type.Union([Type.String(), Type.Null()], {
    description: 'Since when this instance counts calls, failures and latencies',
  }),
  evaluationsThisMonth: Type.Integer({
    description: 'Stored decisions this provider answered this month (UTC), on every instance',
  }),
  spendThisMonthUsd: Type.Number({ description: 'Their USD (costPerCall, costPer1kChars)' }),
});

export const providerRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/providers',
      {
        schema: {
          tags: ['operations'],
          summary:
            'AI providers: configured providers, circuit state, latency, error rate, spend (operator admin)',
          response: {
            200: Type.Object({ providers: Type.Array(ProviderView) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({
        providers: await listProviders(principalOf(request), ctx.providers, ctx.usage),
      }),
    );
  };

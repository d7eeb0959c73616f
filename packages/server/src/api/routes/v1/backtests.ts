import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { backtestView, shadowView } from '../../../backtest/index.ts';
import type { AppContext } from '../../../context.ts';
import { rejectUnknownParameters } from '../../../domain/decision-filters.ts';
import { principalOf } from '../../plugins/auth.ts';
import { BacktestBody, ShadowBody } from '../../schemas/backtests.ts';
import { errorResponses } from '../../schemas/common.ts';

const Params = Type.Object({ policyId: Type.String() });

/** Backtests of candidate policies over stored decisions, and shadow policies on live traffic (issue 18). */
export const backtestRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/policies/:policyId/backtest',
      {
        schema: {
          tags: ['policies'],
          summary: 'Replay a candidate policy over your stored decisions and report what would change',
          description:
            'Decided from the stored scores (no model call). Up to 5,000 decisions answer at once (200); larger ' +
            'windows, or `async: true`, run as a background job (202): poll GET /v1/backtests/{backtestId}.',
          params: Params,
          body: BacktestBody,
          response: {
            200: Type.Ref('Backtest'),
            202: Type.Ref('Backtest'),
            ...errorResponses(400, 401, 403, 404, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        const { async, backtest } = await ctx.backtests.start(
          principalOf(request),
          request.params.policyId,
          body,
        );
        return reply.code(async ? 202 : 200).send(backtestView(backtest));
      },
    );

    app.get(
      '/v1/backtests/:backtestId',
      {
        schema: {
          tags: ['policies'],
          summary: 'A backtest: its progress, and its report once completed',
          params: Type.Object({ backtestId: Type.String() }),
          response: { 200: Type.Ref('Backtest'), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) =>
        backtestView(await ctx.backtests.get(principalOf(request), request.params.backtestId)),
    );

    app.put(
      '/v1/policies/:policyId/shadow',
      {
        config: { scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Run a candidate policy in the shadow of this one (replaces a running shadow)',
          description:
            'Every new decision under this policy is also decided by the candidate from the same scores, with no ' +
            'second model call; the answer and events are unchanged. Give one of shadowPolicyId, version, yamlContent.',
          params: Params,
          body: ShadowBody,
          response: { 200: Type.Ref('Shadow'), ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        return shadowView(await ctx.shadows.set(principalOf(request), request.params.policyId, body));
      },
    );

    app.get(
      '/v1/policies/:policyId/shadow',
      {
        schema: {
          tags: ['policies'],
          summary: "The policy's newest shadow (running, expired or stopped)",
          params: Params,
          response: { 200: Type.Ref('Shadow'), ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request) => shadowView(await ctx.shadows.get(principalOf(request), request.params.policyId)),
    );

    app.delete(
      '/v1/policies/:policyId/shadow',
      {
        config: { scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Stop the running shadow (its report stays readable)',
          params: Params,
          response: { 200: Type.Ref('Shadow'), ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request) => shadowView(await ctx.shadows.stop(principalOf(request), request.params.policyId)),
    );

    app.get(
      '/v1/policies/:policyId/shadow/report',
      {
        schema: {
          tags: ['policies'],
          summary: 'What the newest shadow would have changed, in the shape of a backtest report',
          params: Params,
          querystring: Type.Object({ examples: Type.Optional(Type.Integer({ minimum: 0, maximum: 50 })) }),
          response: {
            200: Type.Object({
              shadow: Type.Ref('Shadow'),
              report: Type.Ref('ChangeReport'),
              truncated: Type.Boolean({ description: 'true when more than 200,000 decisions were recorded' }),
            }),
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const query = request.query as Record<string, unknown>;
        rejectUnknownParameters(query, ['examples']);
        const { shadow, report, truncated } = await ctx.shadows.report(
          principalOf(request),
          request.params.policyId,
          query,
        );
        return { shadow: shadowView(shadow), report, truncated };
      },
    );
  };

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { rejectUnknownParameters } from '../../../domain/decision-filters.ts';
import { policyView } from '../../../domain/policies/service.ts';
import { principalOf } from '../../plugins/auth.ts';
import { PolicyDiff } from '../../schemas/backtests.ts';
import { errorResponses } from '../../schemas/common.ts';

const Params = Type.Object({ policyId: Type.String() });

/** Policy versions, diff, rollback and deletion (issue 18). */
export const policyLifecycleRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/policies/:policyId/versions',
      {
        schema: {
          tags: ['policies'],
          summary: 'Every version of a policy, oldest first',
          params: Params,
          response: {
            200: Type.Object({ policyId: Type.String(), versions: Type.Array(Type.Ref('Policy')) }),
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const { policy, versions } = await ctx.policyLifecycle.versions(
          principalOf(request),
          request.params.policyId,
        );
        return { policyId: policy.policyId, versions: versions.map(policyView) };
      },
    );

    app.get(
      '/v1/policies/:policyId/diff',
      {
        schema: {
          tags: ['policies'],
          summary: 'What changed between two versions (default: the latest and the one before)',
          params: Params,
          querystring: Type.Object({
            from: Type.Optional(Type.Integer({ minimum: 1 })),
            to: Type.Optional(Type.Integer({ minimum: 1 })),
          }),
          response: { 200: PolicyDiff, ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request) => {
        const query = request.query as Record<string, unknown>;
        rejectUnknownParameters(query, ['from', 'to']);
        return ctx.policyLifecycle.diff(principalOf(request), request.params.policyId, query);
      },
    );

    app.post(
      '/v1/policies/:policyId/rollback',
      {
        config: { scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Store a new version equal to an earlier one',
          description: 'Rolling back to what the latest version already is writes nothing and answers it.',
          params: Params,
          body: Type.Object({ version: Type.Integer({ minimum: 1 }) }),
          response: { 200: Type.Ref('Policy'), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      async (request) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        const { policy } = await ctx.policyLifecycle.rollback(
          principalOf(request),
          request.params.policyId,
          body,
        );
        return policyView(policy);
      },
    );

    app.delete(
      '/v1/policies/:policyId',
      {
        config: { scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Delete your policy (decisions keep their policy ID and version)',
          description:
            '409 POLICY_IN_USE while a running shadow uses it; 409 POLICY_READ_ONLY for built-in policies.',
          params: Params,
          response: {
            200: Type.Object({ policyId: Type.String(), deleted: Type.Literal(true) }),
            ...errorResponses(401, 403, 404, 409, 422, 429),
          },
        },
      },
      async (request) => ctx.policyLifecycle.delete(principalOf(request), request.params.policyId),
    );
  };

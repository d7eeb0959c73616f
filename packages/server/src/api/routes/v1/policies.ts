import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { rejectUnknownParameters } from '../../../domain/decision-filters.ts';
import { parseVersion } from '../../../domain/policies/lifecycle.ts';
import { policyView } from '../../../domain/policies/service.ts';
import { principalOf } from '../../plugins/auth.ts';
import { PolicyBody } from '../../schemas/admin.ts';
import { errorResponses } from '../../schemas/common.ts';

export const policyRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/policies',
      {
        config: { idempotent: true, scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Create a policy (201) or replace your own (200, new version)',
          description:
            'Send `If-None-Match: *` to create only: an existing ID is then 409 DUPLICATE_POLICY_ID.',
          body: PolicyBody,
          response: {
            200: Type.Ref('Policy'),
            201: Type.Ref('Policy'),
            ...errorResponses(400, 401, 403, 409, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        // the same YAML again answers the existing version (200) without writing one
        const { created, policy } = await ctx.policies.save(principalOf(request), body, {
          createOnly: request.headers['if-none-match'] === '*',
        });
        return reply.code(created ? 201 : 200).send(policyView(policy));
      },
    );

    app.post(
      '/v1/policies/validate',
      {
        config: { scope: 'policies:write' },
        schema: {
          tags: ['policies'],
          summary: 'Check policy YAML without saving it (422 with line/column as saving would)',
          body: Type.Object({ yamlContent: Type.String() }),
          response: {
            200: Type.Object({
              valid: Type.Literal(true),
              name: Type.String(),
              description: Type.Union([Type.String(), Type.Null()]),
              categories: Type.Record(Type.String(), Type.Unknown()),
            }),
            ...errorResponses(400, 401, 403, 422, 429),
          },
        },
      },
      async (request) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        return { valid: true as const, ...ctx.policies.validate(principalOf(request), body.yamlContent) };
      },
    );

    app.get(
      '/v1/policies',
      {
        schema: {
          tags: ['policies'],
          summary: 'List the built-in policies and your own',
          response: {
            200: Type.Object({ policies: Type.Array(Type.Ref('Policy')) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({ policies: (await ctx.policies.list(principalOf(request))).map(policyView) }),
    );

    app.get(
      '/v1/policies/:policyId',
      {
        schema: {
          tags: ['policies'],
          summary: 'Get a policy (its latest version, or `?version=N`)',
          params: Type.Object({ policyId: Type.String() }),
          querystring: Type.Object({ version: Type.Optional(Type.Integer({ minimum: 1 })) }),
          response: { 200: Type.Ref('Policy'), ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request) => {
        const query = request.query as Record<string, unknown>;
        rejectUnknownParameters(query, ['version']);
        const version = query.version === undefined ? undefined : parseVersion(query.version);
        return policyView(
          await ctx.policyLifecycle.get(principalOf(request), request.params.policyId, version),
        );
      },
    );
  };

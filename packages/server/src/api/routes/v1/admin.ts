import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { accountView } from '../../../domain/accounts.ts';
import { keyView } from '../../../domain/keys.ts';
import { hasScope } from '../../../domain/principal.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { AccountBody, KeyBody, KeyUpdateBody } from '../../schemas/admin.ts';
import { errorResponses, Pagination } from '../../schemas/common.ts';

/** API keys and accounts (decisions §9). */
export const adminRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/keys',
      {
        // not idempotent: its response holds the new key, which is never stored (only its hash)
        schema: {
          tags: ['keys'],
          summary: 'Create an API key (admin); the key is shown only in this response',
          body: KeyBody,
          response: { 201: Type.Ref('ApiKey'), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const { key, record } = await ctx.keys.create(principalOf(request), (request.body ?? {}) as never);
        return reply.code(201).send({ ...keyView(record), key });
      },
    );

    app.get(
      '/v1/keys',
      {
        schema: {
          tags: ['keys'],
          summary: "List API keys (your account's; the operator sees all, or one account with ?accountId=)",
          querystring: Type.Object({ accountId: Type.Optional(Type.String()) }),
          response: {
            200: Type.Object({ keys: Type.Array(Type.Ref('ApiKey')) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({
        keys: (await ctx.keys.list(principalOf(request), request.query.accountId)).map(keyView),
      }),
    );

    app.delete(
      '/v1/keys/:id',
      {
        schema: {
          tags: ['keys'],
          summary: 'Revoke an API key',
          params: Type.Object({ id: Type.String() }),
          response: {
            200: Type.Object({ id: Type.String(), revoked: Type.Literal(true) }),
            ...errorResponses(401, 403, 404, 429),
          },
        },
      },
      async (request) => {
        const record = await ctx.keys.revoke(principalOf(request), request.params.id);
        return { id: record.id, revoked: true as const };
      },
    );

    app.patch(
      '/v1/keys/:id',
      {
        schema: {
          tags: ['keys'],
          summary:
            'Rename a key or set its rate-limit override (rateLimit: null restores the service defaults)',
          params: Type.Object({ id: Type.String() }),
          body: KeyUpdateBody,
          response: { 200: Type.Ref('ApiKey'), ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) =>
        keyView(
          await ctx.keys.update(principalOf(request), request.params.id, (request.body ?? {}) as never),
        ),
    );

    app.post(
      '/v1/accounts',
      {
        config: { idempotent: true, scope: 'admin' },
        schema: {
          tags: ['accounts'],
          summary: 'Create an account (operator admin)',
          body: AccountBody,
          response: { 201: Type.Ref('Account'), ...errorResponses(400, 401, 403, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const account = await ctx.accounts.createAs(principalOf(request), (request.body ?? {}) as never);
        return reply.code(201).send(accountView(account));
      },
    );

    app.get(
      '/v1/accounts',
      {
        schema: {
          tags: ['accounts'],
          summary: 'List accounts (operator admin)',
          querystring: Pagination,
          response: {
            200: Type.Object({ accounts: Type.Array(Type.Ref('Account')) }),
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request) => {
        const { limit, offset } = parsePagination(request.query, { limit: 100, max: 1000 });
        return {
          accounts: (await ctx.accounts.list(principalOf(request), limit, offset)).map((a) => accountView(a)),
        };
      },
    );

    app.patch(
      '/v1/accounts/:accountId',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Update an account: name, monthlyQuota, trialEndsAt (operator admin)',
          params: Type.Object({ accountId: Type.String() }),
          body: AccountBody,
          response: { 200: Type.Ref('Account'), ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) =>
        accountView(
          await ctx.accounts.update(
            principalOf(request),
            request.params.accountId,
            (request.body ?? {}) as never,
          ),
        ),
    );

    app.get(
      '/v1/account',
      {
        schema: {
          tags: ['accounts'],
          summary: 'Your own account; admin keys also see the signing secret of ad-hoc deliveries',
          response: { 200: Type.Ref('Account'), ...errorResponses(401, 429) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        // the signing secret lets its holder forge deliveries to every webhookUrl of the account: admin keys only
        return accountView(await ctx.accounts.get(principal.accountId), hasScope(principal, 'admin'));
      },
    );
  };

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { deliveryView, webhookView } from '../../../domain/webhooks.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import {
  Delivery,
  WebhookCreateBody,
  WebhookTestBody,
  WebhookTestResult,
  WebhookUpdateBody,
} from '../../schemas/webhooks.ts';

const Params = Type.Object({ webhookId: Type.String() });

/** Webhook endpoints (interface §4.9, decisions §6). */
export const webhookRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/webhooks',
      {
        config: { idempotent: true, idempotentSecret: 'secret', scope: 'webhooks:write' },
        schema: {
          tags: ['webhooks'],
          summary: 'Register a webhook; the signing secret is shown only in this response',
          description:
            'A repeat with the same Idempotency-Key answers the stored response without `secret`: the secret is ' +
            'shown once; rotate it if it was lost.',
          body: WebhookCreateBody,
          response: { 201: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const webhook = await ctx.webhooks.create(principalOf(request), (request.body ?? {}) as never);
        return reply.code(201).send(webhookView(webhook, true));
      },
    );

    app.get(
      '/v1/webhooks',
      {
        schema: {
          tags: ['webhooks'],
          summary: "List the account's webhooks",
          response: {
            200: Type.Object({ webhooks: Type.Array(Type.Ref('Webhook')) }),
            ...errorResponses(401, 403, 429),
          },
        },
      },
      async (request) => ({
        webhooks: (await ctx.webhooks.list(principalOf(request))).map((w) => webhookView(w)),
      }),
    );

    app.get(
      '/v1/webhooks/:webhookId',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Get a webhook',
          params: Params,
          response: { 200: Type.Ref('Webhook'), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => webhookView(await ctx.webhooks.get(principalOf(request), request.params.webhookId)),
    );

    app.patch(
      '/v1/webhooks/:webhookId',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Update the URL, events, description or enabled flag of a webhook',
          params: Params,
          body: WebhookUpdateBody,
          response: { 200: Type.Ref('Webhook'), ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) =>
        webhookView(
          await ctx.webhooks.update(
            principalOf(request),
            request.params.webhookId,
            (request.body ?? {}) as never,
          ),
        ),
    );

    app.delete(
      '/v1/webhooks/:webhookId',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Delete a webhook',
          params: Params,
          response: {
            200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }),
            ...errorResponses(401, 403, 404, 429),
          },
        },
      },
      async (request) => {
        await ctx.webhooks.delete(principalOf(request), request.params.webhookId);
        return { id: request.params.webhookId, deleted: true as const };
      },
    );

    app.post(
      '/v1/webhooks/:webhookId/test',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Send one signed test event now and report how the endpoint answered',
          params: Params,
          body: WebhookTestBody,
          response: { 200: WebhookTestResult, ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) =>
        ctx.webhooks.test(principalOf(request), request.params.webhookId, (request.body ?? {}) as never),
    );

    app.post(
      '/v1/webhooks/:webhookId/rotate-secret',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Issue a new signing secret; the previous one keeps signing (a second v1=) for 24 hours',
          params: Params,
          response: { 200: Type.Ref('Webhook'), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) =>
        webhookView(await ctx.webhooks.rotateSecret(principalOf(request), request.params.webhookId), true),
    );

    app.get(
      '/v1/webhooks/:webhookId/deliveries',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Delivery attempts of a webhook, newest first',
          params: Params,
          querystring: Type.Object({
            limit: Type.Optional(
              Type.String({ pattern: '^[0-9]+$', description: 'Default 20, maximum 100' }),
            ),
            offset: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Default 0' })),
          }),
          response: {
            200: Type.Object({
              deliveries: Type.Array(Delivery),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const { limit, offset } = parsePagination(request.query);
        const { deliveries, hasMore } = await ctx.webhooks.deliveries(
          principalOf(request),
          request.params.webhookId,
          limit,
          offset,
        );
        return { deliveries: deliveries.map(deliveryView), limit, offset, hasMore };
      },
    );
  };

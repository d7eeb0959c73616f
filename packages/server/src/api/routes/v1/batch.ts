import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { MAX_BATCH_ITEMS } from '../../../domain/batches.ts';
import { principalOf } from '../../plugins/auth.ts';
import { AsyncBatchBody, BatchAccepted, BatchBody, BatchResult, BatchStatus } from '../../schemas/batches.ts';
import { errorResponses } from '../../schemas/common.ts';

/** 100 texts of 32 KB are ~3.3 MB of JSON; images in batches are meant as URLs. */
const BATCH_BODY_LIMIT = 16 * 1024 * 1024;
/** JSON values a batch body may hold: each item's 8 KB of metadata holds at most ~4,100, plus its few fields. */
const BATCH_JSON_VALUES = MAX_BATCH_ITEMS * 5_000;

/** Batches of checks (interface §4.3, §4.4; decisions §7). */
export const batchRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/batch/check',
      {
        bodyLimit: BATCH_BODY_LIMIT,
        config: { idempotent: true, scope: 'check', maxJsonValues: BATCH_JSON_VALUES },
        schema: {
          tags: ['batches'],
          summary: 'Check 1–100 items now; every item is validated before any is evaluated',
          body: BatchBody,
          response: {
            200: BatchResult,
            ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503),
          },
        },
      },
      async (request) => ctx.batches.checkSync(principalOf(request), (request.body ?? {}) as never),
    );

    app.post(
      '/v1/batch/check/async',
      {
        bodyLimit: BATCH_BODY_LIMIT,
        config: { idempotent: true, scope: 'check', maxJsonValues: BATCH_JSON_VALUES },
        schema: {
          tags: ['batches'],
          summary:
            'Queue 1–100 items; moderation.completed goes to webhookUrl (and subscribed webhooks) when done',
          body: AsyncBatchBody,
          response: { 202: BatchAccepted, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429, 503) },
        },
      },
      async (request, reply) => {
        const accepted = await ctx.batches.submit(principalOf(request), (request.body ?? {}) as never, {
          requestId: request.idempotencyKey,
        });
        return reply.code(202).send(accepted);
      },
    );

    app.get(
      '/v1/batch/:batchId',
      {
        schema: {
          tags: ['batches'],
          summary: 'Status of an asynchronous batch, with its items when completed',
          params: Type.Object({ batchId: Type.String() }),
          response: { 200: BatchStatus, ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => ctx.batches.get(principalOf(request), request.params.batchId),
    );
  };

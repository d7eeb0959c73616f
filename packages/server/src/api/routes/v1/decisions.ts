import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { parseDecisionFilter } from '../../../domain/decision-filters.ts';
import { checkResultView, decisionView } from '../../../domain/decisions.ts';
import { jsonLines } from '../../../search/export.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { Action, errorResponses, Pagination } from '../../schemas/common.ts';

const DecisionParams = Type.Object({ decisionId: Type.String() });

const DecisionFilters = {
  action: Type.Optional(Action),
  policyId: Type.Optional(Type.String()),
  category: Type.Optional(Type.String({ description: 'Only decisions in which this category triggered' })),
  contentType: Type.Optional(
    Type.Union([
      Type.Literal('text'),
      Type.Literal('image'),
      Type.Literal('video'),
      Type.Literal('multimodal'),
    ]),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive' })),
  userId: Type.Optional(Type.String({ description: 'metadata.userId' })),
  keyId: Type.Optional(Type.String({ description: 'The API key (key_…) that made the decision' })),
  q: Type.Optional(
    Type.String({
      description:
        'Full-text search: decisions whose content holds every word of this text (any language; case and ' +
        'Latin diacritics ignored; at most 16 words)',
    }),
  ),
};

const DecisionQuery = Type.Object(
  { ...Pagination.properties, ...DecisionFilters },
  { additionalProperties: false, description: 'Unknown parameters are 422 INVALID_PARAMETER' },
);

const ExportQuery = Type.Object(DecisionFilters, {
  additionalProperties: false,
  description:
    'The filters of GET /v1/decisions; unknown parameters (limit and offset too) are 422 INVALID_PARAMETER',
});

export const decisionRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/decisions',
      {
        schema: {
          tags: ['decisions'],
          summary: 'List your decisions, newest first, optionally filtered',
          querystring: DecisionQuery,
          response: {
            200: Type.Object({
              decisions: Type.Array(Type.Ref('Decision')),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request) => {
        const filter = parseDecisionFilter(request.query as Record<string, unknown>);
        const { limit, offset } = parsePagination(request.query);
        const principal = principalOf(request);
        const { decisions, hasMore } = await ctx.decisions.list(principal, limit, offset, filter);
        // the human layer (effectiveAction, review) of issue 18 is added to each view
        const views = await ctx.review.queue.decisionViews(principal.accountId, decisions);
        return { decisions: views, limit, offset, hasMore };
      },
    );

    app.get(
      '/v1/decisions/export',
      {
        schema: {
          tags: ['decisions'],
          summary: 'Every matching decision, newest first, streamed as JSON Lines (one Decision per line)',
          querystring: ExportQuery,
          produces: ['application/x-ndjson'],
          response: {
            200: {
              description: 'JSON Lines: one Decision object per line, newest first',
              content: { 'application/x-ndjson': { schema: Type.Ref('Decision') } },
            },
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const filter = parseDecisionFilter(request.query as Record<string, unknown>, { paged: false });
        const pages = ctx.decisions.export(principalOf(request), filter);
        return reply
          .type('application/x-ndjson; charset=utf-8')
          .header('content-disposition', 'attachment; filename="decisions.jsonl"')
          .send(jsonLines(pages, decisionView));
      },
    );

    app.get(
      '/v1/decisions/:decisionId',
      {
        schema: {
          tags: ['decisions'],
          summary: 'Get a stored decision',
          params: DecisionParams,
          response: { 200: Type.Ref('Decision'), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        const decision = await ctx.decisions.get(principal, request.params.decisionId);
        return (await ctx.review.queue.decisionViews(principal.accountId, [decision]))[0];
      },
    );

    app.post(
      '/v1/decisions/:decisionId/replay',
      {
        config: { idempotent: true, scope: 'check' },
        schema: {
          tags: ['decisions'],
          summary: 'Re-decide stored content under another policy; stores a new decision with replayOf',
          params: DecisionParams,
          body: Type.Object({ policyId: Type.String(), requestId: Type.Optional(Type.String()) }),
          response: {
            200: Type.Ref('CheckResult'),
            ...errorResponses(400, 401, 403, 404, 409, 422, 429, 502),
          },
        },
      },
      async (request) => {
        const record = await ctx.checks.replay(
          principalOf(request),
          request.params.decisionId,
          (request.body ?? {}) as Record<string, unknown>,
          { requestId: request.idempotencyKey },
        );
        return checkResultView(record);
      },
    );

    app.get(
      '/v1/decisions/:decisionId/curl',
      {
        schema: {
          tags: ['decisions'],
          summary: 'A cURL command reproducing the check (the key is $VERDICT_API_KEY)',
          params: DecisionParams,
          response: { 200: Type.Object({ curl: Type.String() }), ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => ({
        curl: await ctx.decisions.curl(principalOf(request), request.params.decisionId),
      }),
    );
  };

import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { AppError } from '../../../domain/errors.ts';
import { statementText } from '../../../review/statements.ts';
import { parsePagination } from '../../pagination.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { AppealBody, ClaimBody, QueueQuery, ReviewBody } from '../../schemas/review.ts';

const DecisionParams = Type.Object({ decisionId: Type.String() });
const body = (b: unknown) => (b ?? {}) as Record<string, unknown>;

/** Human review (issue 18): the queue, reviews, appeals and statements of reasons. */
export const reviewRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    const { queue, appeals, statements } = ctx.review;

    app.get(
      '/v1/review/queue',
      {
        schema: {
          tags: ['review'],
          summary: 'Decisions waiting for human review: appeals first, then oldest first (scope review)',
          querystring: QueueQuery,
          response: {
            200: Type.Object({
              items: Type.Array(Type.Ref('ReviewQueueItem')),
              limit: Type.Integer(),
              offset: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request) => {
        const query = request.query as Record<string, unknown>;
        const page = parsePagination(query);
        const { items, hasMore } = await queue.queue(principalOf(request), query, page);
        return { items, ...page, hasMore };
      },
    );

    app.post(
      '/v1/review/queue/claim',
      {
        schema: {
          tags: ['review'],
          summary:
            'Lease up to `limit` available entries to the calling key for `leaseSeconds` (scope review)',
          description:
            'Atomic: two reviewers claiming at once never get the same entry. An entry whose lease ended returns ' +
            'to the queue. Answers 200 with no items when nothing is available.',
          body: ClaimBody,
          response: {
            200: Type.Object({
              items: Type.Array(Type.Ref('ReviewQueueItem')),
              leaseExpiresAt: Type.String({ format: 'date-time' }),
            }),
            ...errorResponses(400, 401, 403, 422, 429),
          },
        },
      },
      async (request) => queue.claim(principalOf(request), body(request.body)),
    );

    app.post(
      '/v1/review/queue/:itemId/release',
      {
        schema: {
          tags: ['review'],
          summary: 'Give a claimed entry back to the queue before its lease ends',
          params: Type.Object({ itemId: Type.String() }),
          response: { 200: Type.Ref('ReviewQueueItem'), ...errorResponses(401, 403, 404, 409, 429) },
        },
      },
      async (request) => queue.release(principalOf(request), request.params.itemId),
    );

    app.post(
      '/v1/decisions/:decisionId/review',
      {
        schema: {
          tags: ['review'],
          summary: "Record a reviewer's outcome: confirm, or overturn to another action (scope review)",
          description:
            'Completes the decision’s queue entry (409 REVIEW_LEASED when another key holds its lease); a ' +
            'decision not in the queue is reviewed directly. Resolves an open appeal. Emits decision.reviewed, ' +
            'and decision.overturned / appeal.resolved when they apply. `action` stays the automated action; ' +
            '`effectiveAction` and `review` show the outcome.',
          params: DecisionParams,
          body: ReviewBody,
          response: { 200: Type.Ref('Decision'), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      async (request) => queue.review(principalOf(request), request.params.decisionId, body(request.body)),
    );

    app.post(
      '/v1/decisions/:decisionId/appeals',
      {
        schema: {
          tags: ['review'],
          summary: "Appeal a decision on behalf of the platform's user (scope check or review)",
          description:
            'The decision goes to the front of the review queue. One open appeal per decision (409).',
          params: DecisionParams,
          body: AppealBody,
          response: { 201: Type.Ref('Appeal'), ...errorResponses(400, 401, 403, 404, 409, 422, 429) },
        },
      },
      async (request, reply) => {
        const appeal = await appeals.file(
          principalOf(request),
          request.params.decisionId,
          body(request.body),
        );
        return reply.code(201).send(appeal);
      },
    );

    app.get(
      '/v1/decisions/:decisionId/appeals',
      {
        schema: {
          tags: ['review'],
          summary: "A decision's appeals, oldest first",
          params: DecisionParams,
          response: {
            200: Type.Object({ appeals: Type.Array(Type.Ref('Appeal')) }),
            ...errorResponses(401, 403, 404, 429),
          },
        },
      },
      async (request) => appeals.list(principalOf(request), request.params.decisionId),
    );

    app.get(
      '/v1/decisions/:decisionId/statement',
      {
        schema: {
          tags: ['review'],
          summary: 'The statement of reasons (DSA Art. 17) of a decision, as JSON or text',
          description: 'Text with `?format=text` or `Accept: text/plain`.',
          params: DecisionParams,
          querystring: Type.Object(
            { format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('text')])) },
            { additionalProperties: false },
          ),
          response: {
            200: {
              content: {
                'application/json': { schema: Type.Ref('Statement') },
                'text/plain': { schema: Type.String() },
              },
            },
            ...errorResponses(401, 403, 404, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const format = statementFormat(request.query as Record<string, unknown>, request.headers.accept);
        const statement = await statements.get(principalOf(request), request.params.decisionId);
        if (format === 'text') return reply.type('text/plain; charset=utf-8').send(statementText(statement));
        return reply.type('application/json; charset=utf-8').send(statement);
      },
    );

    app.get(
      '/v1/statements/export',
      {
        schema: {
          tags: ['review'],
          summary:
            'Statements of reasons as JSON lines, oldest first, streamed (for a transparency database)',
          description:
            '`from` (inclusive) and `to` (exclusive) are ISO 8601; only restrictions (effective action other ' +
            'than allow) unless `all=true`.',
          querystring: Type.Object(
            {
              from: Type.Optional(Type.String({ format: 'date-time' })),
              to: Type.Optional(Type.String({ format: 'date-time' })),
              all: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
            },
            { additionalProperties: false },
          ),
          response: {
            200: { content: { 'application/x-ndjson': { schema: Type.String() } } },
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const lines = statements.export(principalOf(request), request.query as Record<string, unknown>);
        // a stream, one page of decisions at a time (the typed reply only knows the documented string body)
        return reply.type('application/x-ndjson; charset=utf-8').send(Readable.from(lines) as never);
      },
    );
  };

function statementFormat(query: Record<string, unknown>, accept: string | undefined): 'json' | 'text' {
  for (const key of Object.keys(query)) {
    if (key !== 'format') throw invalidParameter(key, `Unknown query parameter "${key}"`);
  }
  if (query.format !== undefined) {
    if (query.format !== 'json' && query.format !== 'text')
      throw invalidParameter('format', 'format must be json or text');
    return query.format;
  }
  return accept && /^text\/plain\b/.test(accept.trim()) ? 'text' : 'json';
}

function invalidParameter(field: string, message: string) {
  return new AppError('INVALID_PARAMETER', message, { field });
}

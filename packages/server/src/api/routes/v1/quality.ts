import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const Interval = Type.Union([Type.Tuple([Type.Number(), Type.Number()]), Type.Null()]);

const CategoryQuality = Type.Object({
  category: Type.String(),
  labelled: Type.Integer({ description: 'Reviewed decisions with a label for this category' }),
  positives: Type.Integer({ description: 'Of them, the reviewer said the category applies' }),
  truePositives: Type.Integer(),
  falsePositives: Type.Integer(),
  falseNegatives: Type.Integer(),
  precision: Type.Union([Type.Number(), Type.Null()]),
  recall: Type.Union([Type.Number(), Type.Null()]),
  precisionInterval: Interval,
  recallInterval: Interval,
  currentThreshold: Type.Union([Type.Number(), Type.Null()], {
    description: "The policy's threshold now (null: the policy does not list the category)",
  }),
  suggestedThreshold: Type.Union([
    Type.Object({
      threshold: Type.Number(),
      precision: Type.Number(),
      recall: Type.Number(),
      support: Type.Integer({ description: 'Reviewed decisions at or above it' }),
    }),
    Type.Null(),
  ]),
});

const QualityReport = Type.Object({
  policyId: Type.String(),
  policyVersion: Type.Integer(),
  from: Type.Union([Type.String(), Type.Null()]),
  to: Type.Union([Type.String(), Type.Null()]),
  targetPrecision: Type.Number(),
  reviewedDecisions: Type.Integer(),
  truncated: Type.Boolean({ description: 'The window held more than 50,000 reviews; the first were used' }),
  categories: Type.Array(CategoryQuality),
});

export const qualityRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/quality',
      {
        schema: {
          tags: ['review'],
          summary:
            "Per category, the automated decisions of a policy against its reviewers' labels: precision, recall, " +
            'and the threshold that would have met a target precision (scope decisions:read or review)',
          querystring: Type.Object({
            policyId: Type.String(),
            from: Type.Optional(
              Type.String({ format: 'date-time', description: 'Reviews from (inclusive)' }),
            ),
            to: Type.Optional(
              Type.String({ format: 'date-time', description: 'Reviews before (exclusive)' }),
            ),
            targetPrecision: Type.Optional(Type.String({ description: 'Above 0, at most 1; default 0.9' })),
          }),
          response: { 200: QualityReport, ...errorResponses(401, 403, 404, 422, 429) },
        },
      },
      async (request) => ctx.quality.report(principalOf(request), request.query as Record<string, unknown>),
    );
  };

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const Usage = Type.Object({
  accountId: Type.String(),
  month: Type.String({ description: 'YYYY-MM (UTC)' }),
  evaluations: Type.Integer({
    description: 'A text, a batch item, an image and a video frame each count one',
  }),
  breakdown: Type.Object({ text: Type.Integer(), image: Type.Integer(), videoFrames: Type.Integer() }),
  costUsd: Type.Number({
    description: 'USD spent on external AI providers this month (0 with the bundled models)',
  }),
  monthlyQuota: Type.Union([Type.Integer(), Type.Null()]),
  remaining: Type.Union([Type.Integer(), Type.Null()]),
  trialEndsAt: Type.Union([Type.String(), Type.Null()]),
});

const Counts = Type.Object({
  text: Type.Integer(),
  image: Type.Integer(),
  video: Type.Integer(),
  multimodal: Type.Integer(),
});

const KeyUsage = Type.Object({
  accountId: Type.String(),
  month: Type.String({ description: 'YYYY-MM (UTC)' }),
  checks: Type.Integer({ description: 'Stored decisions of the account in the month' }),
  keys: Type.Array(
    Type.Object({
      keyId: Type.String(),
      name: Type.Union([Type.String(), Type.Null()], { description: 'null: not one of this account’s keys' }),
      prefix: Type.Union([Type.String(), Type.Null()]),
      last4: Type.Union([Type.String(), Type.Null()]),
      revoked: Type.Boolean(),
      checks: Type.Integer({ description: 'Decisions made with the key in the month' }),
      byContentType: Counts,
    }),
    { description: 'Every key of the account, most checks first' },
  ),
  unattributed: Type.Integer({
    description: 'Decisions stored before decisions recorded their key',
  }),
});

export const usageRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/usage',
      {
        schema: {
          tags: ['accounts'],
          summary: "Your account's evaluations in a month (default: the current one)",
          querystring: Type.Object({ month: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}$' })) }),
          response: { 200: Usage, ...errorResponses(401, 422, 429) },
        },
      },
      async (request) => ctx.usage.get(principalOf(request), request.query.month),
    );

    app.get(
      '/v1/usage/keys',
      {
        schema: {
          tags: ['accounts'],
          summary:
            'Checks per API key in a month (default: the current one), counted from stored decisions (admin)',
          description:
            'A decision counts one check whatever it held (a batch item, an image, a whole video each count one). ' +
            'Decisions deleted by retention and evaluations that store no decision (the compatibility endpoints) ' +
            'are not counted; `GET /v1/usage` is the quota counter.',
          querystring: Type.Object(
            { month: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}$' })) },
            { additionalProperties: false },
          ),
          response: { 200: KeyUsage, ...errorResponses(401, 403, 422, 429) },
        },
      },
      async (request) => ctx.keyUsage.get(principalOf(request), request.query as Record<string, unknown>),
    );
  };

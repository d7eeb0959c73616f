import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

const AuditQuery = Type.Object(
  {
    action: Type.Optional(
      Type.String({ description: 'An exact action (key.revoked) or every action on a target type (key)' }),
    ),
    actorKeyId: Type.Optional(Type.String()),
    targetType: Type.Optional(Type.String()),
    targetId: Type.Optional(Type.String()),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive' })),
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
    limit: Type.Optional(Type.String({ description: '1–200, default 50' })),
    accountId: Type.Optional(Type.String({ description: "Operator admin keys only: another account's log" })),
  },
  { description: 'Unknown parameters are 422 INVALID_PARAMETER' },
);

export const auditRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/audit',
      {
        schema: {
          tags: ['audit'],
          summary: 'The append-only log of human and administrative actions, newest first',
          querystring: AuditQuery,
          response: {
            200: Type.Object({
              entries: Type.Array(Type.Ref('AuditEntry')),
              hasMore: Type.Boolean(),
              nextCursor: Type.Union([Type.String(), Type.Null()]),
            }),
            ...errorResponses(401, 403, 422, 429),
          },
        },
      },
      async (request) => ctx.audit.list(principalOf(request), request.query as Record<string, unknown>),
    );
  };

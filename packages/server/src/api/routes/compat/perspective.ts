import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { compatErrorHandler } from '../../plugins/errors.ts';

/** google.rpc canonical status names for the statuses Verdict answers with. */
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
};

const GoogleError = Type.Object({
  error: Type.Object({
    code: Type.Integer(),
    message: Type.String(),
    status: Type.String(),
    details: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  }),
});

const Score = Type.Object({ value: Type.Number(), type: Type.Literal('PROBABILITY') });

/**
 * Perspective API drop-in (issue 19): `POST /v1alpha1/comments:analyze` with Perspective's body and answer. The
 * key is a Verdict key with the `check` scope, as `?key=` (as Google's clients send it; redacted from logs),
 * `X-Goog-Api-Key` or `Authorization: Bearer`. `?policyId=` chooses the policy a stored decision is made under
 * (default `default`). Errors take Google's shape; validation errors are 400 INVALID_ARGUMENT.
 */
export const perspectiveRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.setErrorHandler(
      compatErrorHandler((described, status) => ({
        error: {
          code: status,
          message: described.message,
          status: GOOGLE_STATUS[status] ?? 'UNKNOWN',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: described.code,
              domain: 'verdict',
              ...(described.details && { metadata: stringValues(described.details) }),
            },
          ],
        },
      })),
    );

    // `::` is a literal colon in a Fastify path
    app.post(
      '/v1alpha1/comments::analyze',
      {
        config: { compatKey: true, scope: 'check' },
        schema: {
          tags: ['compatibility'],
          summary: 'Perspective API compatible comment analysis',
          security: [{ bearer: [] }, { googleKey: [] }],
          querystring: Type.Object({
            key: Type.Optional(Type.String({ description: 'A Verdict API key (Google clients send it so)' })),
            policyId: Type.Optional(
              Type.String({ description: 'Policy of the stored decision; default `default`' }),
            ),
          }),
          body: Type.Object({
            comment: Type.Object({ text: Type.String(), type: Type.Optional(Type.String()) }),
            requestedAttributes: Type.Record(
              Type.String(),
              Type.Object({
                scoreType: Type.Optional(Type.String()),
                scoreThreshold: Type.Optional(Type.Number()),
              }),
            ),
            languages: Type.Optional(Type.Array(Type.String())),
            spanAnnotations: Type.Optional(Type.Boolean()),
            doNotStore: Type.Optional(Type.Boolean()),
            clientToken: Type.Optional(Type.String()),
          }),
          response: {
            200: Type.Object({
              attributeScores: Type.Record(
                Type.String(),
                Type.Object({
                  spanScores: Type.Array(
                    Type.Object({ begin: Type.Integer(), end: Type.Integer(), score: Score }),
                  ),
                  summaryScore: Score,
                }),
              ),
              languages: Type.Array(Type.String()),
              detectedLanguages: Type.Array(Type.String()),
              clientToken: Type.Optional(Type.String()),
            }),
            '4xx': GoogleError,
            '5xx': GoogleError,
          },
        },
      },
      async (request, reply) => {
        const { policyId } = request.query;
        const result = await ctx.compat.perspective.analyze(principalOf(request), request.body, {
          ...(policyId !== undefined && { policyId }),
        });
        if (result.decisionId) reply.header('x-verdict-decision-id', result.decisionId);
        return result.response;
      },
    );
  };

function stringValues(details: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(details).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { compatErrorHandler } from '../../plugins/errors.ts';

/** Images may come inline as data URLs: the limit of /v1/check. */
const BODY_LIMIT = 28 * 1024 * 1024;

/** OpenAI's error `type` for a status (what its SDK and users look at). */
function errorType(status: number): string {
  if (status === 402) return 'insufficient_quota';
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

const OpenAIError = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String(),
    param: Type.Union([Type.String(), Type.Null()]),
    code: Type.Union([Type.String(), Type.Null()]),
  }),
});

const ModerationResult = Type.Object({
  flagged: Type.Boolean(),
  categories: Type.Record(Type.String(), Type.Boolean()),
  category_scores: Type.Record(Type.String(), Type.Number()),
  category_applied_input_types: Type.Record(Type.String(), Type.Array(Type.String())),
});

/**
 * POST /v1/moderations, OpenAI-compatible (issue 19): the official `openai` client works with `baseURL` set to
 * Verdict's `/v1` and a Verdict key as its apiKey. Errors take OpenAI's shape; 422 validation errors are 400 as
 * OpenAI answers them. Nothing is stored; each text and image counts one evaluation.
 */
export const openaiCompatRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.setErrorHandler(
      compatErrorHandler((described, status) => {
        const field = described.details?.field;
        return {
          error: {
            message: described.message,
            type: errorType(status),
            param: typeof field === 'string' ? field : null,
            code: described.code.toLowerCase(),
          },
        };
      }),
    );

    app.post(
      '/v1/moderations',
      {
        bodyLimit: BODY_LIMIT,
        config: { scope: 'check' },
        schema: {
          tags: ['compatibility'],
          summary: 'OpenAI-compatible moderation (input: string, strings, or text and image_url parts)',
          body: Type.Object({
            input: Type.Unknown({
              description: 'A string, an array of strings, or an array of text/image_url parts',
            }),
            model: Type.Optional(
              Type.String({ description: 'Accepted and ignored: the bundled models answer' }),
            ),
          }),
          response: {
            200: Type.Object({
              id: Type.String(),
              model: Type.String(),
              results: Type.Array(ModerationResult),
            }),
            '4xx': OpenAIError,
            '5xx': OpenAIError,
          },
        },
      },
      async (request) => ctx.compat.openai.moderate(principalOf(request), request.body),
    );
  };

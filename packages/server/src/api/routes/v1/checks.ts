import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { checkResultView } from '../../../domain/decisions.ts';
import { withoutContent } from '../../../retention/redact.ts';
import { principalOf } from '../../plugins/auth.ts';
import { CheckBody, DryRunBody, DryRunResult } from '../../schemas/checks.ts';
import { errorResponses } from '../../schemas/common.ts';

/** A base64 image of 20 MB is ~27 MB of JSON. */
const CHECK_BODY_LIMIT = 28 * 1024 * 1024;

export const checkRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/check',
      {
        bodyLimit: CHECK_BODY_LIMIT,
        config: { idempotent: true, scope: 'check' },
        schema: {
          tags: ['checks'],
          summary: 'Check one piece of content against a policy',
          body: CheckBody,
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
          response: {
            200: Type.Ref('CheckResult'),
            ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503),
          },
        },
      },
      async (request) => {
        const body = (request.body ?? {}) as Record<string, unknown>;
        const { record, warnings } = await ctx.checks.check(principalOf(request), body, {
          requestId: request.idempotencyKey,
        });
        const extra = warnings.length > 0 && { warnings };
        if (record.doNotStore)
          request.idempotencyStoredBody = { ...checkResultView(withoutContent(record)), ...extra };
        return { ...checkResultView(record), ...extra };
      },
    );

    app.post(
      '/v1/check/dry-run',
      {
        schema: {
          tags: ['checks'],
          summary: 'Apply a policy to mock scores; no provider is called and nothing is stored',
          body: DryRunBody,
          response: { 200: DryRunResult, ...errorResponses(400, 401, 403, 404, 422, 429) },
        },
      },
      async (request) =>
        ctx.checks.dryRun(principalOf(request), (request.body ?? {}) as Record<string, unknown>),
    );
  };

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { multimodalView } from '../../../domain/multimodal.ts';
import { withoutContent } from '../../../retention/redact.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { MultimodalBody, MultimodalResult } from '../../schemas/multimodal.ts';

/** Ten base64 images of 20 MB are ~270 MB of JSON; bigger images belong behind URLs. */
const MULTIMODAL_BODY_LIMIT = 100 * 1024 * 1024;

export const multimodalRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/check/multimodal',
      {
        bodyLimit: MULTIMODAL_BODY_LIMIT,
        config: { idempotent: true, scope: 'check' },
        schema: {
          tags: ['checks'],
          summary: 'Check text and up to 10 images together against one policy',
          description:
            'Items are validated first (any invalid item fails the request with its field in `details.field`, ' +
            'e.g. `images[3]`), then evaluated concurrently. One decision is stored (contentType `multimodal`); ' +
            '`results` has one entry per item and the overall `action` is the most severe item action. ' +
            'More than 10 images → 422 `TOO_MANY_ITEMS`; none of text/images/video → 422 ' +
            '`MISSING_REQUIRED_FIELD`; `video` (a URL) is judged on 10 frames (errors as /v1/video/check). ' +
            'Image errors are those of `/v1/check`: `INVALID_BASE64`, `INVALID_CONTENT`, `CONTENT_TOO_LARGE`, ' +
            '`INVALID_IMAGE_URL`. A request body over 100 MB → 422 `CONTENT_TOO_LARGE`.',
          body: MultimodalBody,
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
          response: {
            200: MultimodalResult,
            ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503),
          },
        },
      },
      async (request) => {
        const record = await ctx.multimodal.check(
          principalOf(request),
          (request.body ?? {}) as Record<string, unknown>,
          {
            requestId: request.idempotencyKey,
          },
        );
        if (record.doNotStore) request.idempotencyStoredBody = multimodalView(withoutContent(record));
        return multimodalView(record);
      },
    );
  };

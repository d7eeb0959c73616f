import fs from 'node:fs';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { AppError } from '../../../domain/errors.ts';
import type { UploadedFile } from '../../../domain/videos.ts';
import { MAX_VIDEO_BYTES, VideoTooLargeError, writeUpload } from '../../../media/video/source.ts';
import { BodyDeadline } from '../../body-deadline.ts';
import { principalOf } from '../../plugins/auth.ts';
import { claimIdempotencyKey } from '../../plugins/idempotency.ts';
import { nulRefused } from '../../plugins/nul-guard.ts';
import { errorResponses } from '../../schemas/common.ts';
import {
  VideoAccepted,
  VideoCheckBody,
  VideoResult,
  VideoStatus,
  VideoUploadBody,
} from '../../schemas/video.ts';

const tooLarge = () =>
  new AppError('CONTENT_TOO_LARGE', 'The video is larger than 100 MB', {
    field: 'video',
    maxBytes: MAX_VIDEO_BYTES,
  });

const unreadableMultipart = () =>
  new AppError(
    'INVALID_JSON',
    'The multipart/form-data body cannot be read: its Content-Type names no valid boundary',
    { field: 'content-type' },
  );

/** Video checks (interface §4.8, decisions §8) and evidence frames. */
export const videoRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Only this plugin's routes parse multipart bodies; files are streamed, never buffered.
    await app.register(multipart, {
      limits: { fileSize: MAX_VIDEO_BYTES, files: 1, fields: 20, fieldSize: 64 * 1024, parts: 25 },
    });

    app.post(
      '/v1/video/check',
      {
        config: { idempotent: true, scope: 'check' },
        schema: {
          tags: ['video'],
          summary: 'Check a video by URL; analysed in the background',
          description:
            'The video is fetched, probed and its frames reserved against the quota (402 QUOTA_EXCEEDED when they ' +
            'do not fit); 202 follows. Poll `/v1/video/status/{id}` and `/v1/video/result/{id}`; when done, ' +
            '`moderation.completed` (or `moderation.failed`) goes to `webhookUrl` and subscribed webhooks, with ' +
            'the final result as `data` (`data.id` = decisionId).',
          body: VideoCheckBody,
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
          response: { 202: VideoAccepted, ...errorResponses(400, 401, 402, 403, 404, 409, 422, 429, 503) },
        },
      },
      async (request, reply) => {
        const accepted = await ctx.videos.submitUrl(
          principalOf(request),
          (request.body ?? {}) as Record<string, unknown>,
          { requestId: request.idempotencyKey },
        );
        return reply.code(202).send(accepted);
      },
    );

    app.post(
      '/v1/video/upload',
      {
        config: { idempotent: 'after-body', scope: 'check' },
        schema: {
          tags: ['video'],
          summary: 'Upload a video (multipart/form-data, ≤ 100 MB); analysed in the background',
          description:
            'Answers like /v1/video/check. Over 100 MB → 422 CONTENT_TOO_LARGE; not a decodable video → 422 ' +
            'INVALID_CONTENT; longer than maxDurationSeconds → 422 CONTENT_TOO_LARGE (`details.reason: ' +
            '"duration"`). An Idempotency-Key replays the first accepted upload when the fields and the file are the ' +
            'same, and is 422 IDEMPOTENCY_KEY_REUSED when they differ.',
          consumes: ['multipart/form-data'],
          body: VideoUploadBody,
          headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
          response: {
            202: VideoAccepted,
            ...errorResponses(400, 401, 402, 403, 404, 409, 415, 422, 429, 503),
          },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        ctx.videos.authorizeSubmit(principal);
        if (!request.isMultipart()) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the video as multipart/form-data', {
            field: 'video',
          });
        }
        const fields: Record<string, string> = {};
        let upload: UploadedFile | null = null;
        let started = false;
        const deadline = new BodyDeadline(request);
        try {
          const parts = request.parts()[Symbol.asyncIterator]();
          for (;;) {
            const next = await deadline.within(parts.next());
            if (next.done) break;
            const part = next.value;
            started = true;
            if (part.type === 'field') {
              const value = String(part.value);
              if (value.includes('\u0000')) throw nulRefused(part.fieldname);
              fields[part.fieldname] = value;
              continue;
            }
            if (part.fieldname !== 'video' || upload) {
              part.file.resume(); // not ours: drain it
              continue;
            }
            if (fields.policyId !== undefined) await ctx.videos.checkUploadFields(principal, fields);
            const file = ctx.videos.uploadPath();
            try {
              upload = { file, ...(await deadline.within(writeUpload(part.file, file))) };
            } catch (error) {
              part.file.destroy();
              await fs.promises.rm(file, { force: true });
              if (error instanceof VideoTooLargeError) throw tooLarge();
              throw error;
            }
          }
        } catch (error) {
          if (upload) await fs.promises.rm(upload.file, { force: true });
          const code = (error as { code?: string }).code;
          if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
          // before the first part only the parser has run, and its plain errors (no code) are about the
          // Content-Type: busboy throws "Multipart: Boundary not found" (or about the boundary's length)
          if (!started && code === undefined && !(error instanceof AppError)) throw unreadableMultipart();
          throw error;
        } finally {
          deadline.clear();
        }
        if (!upload)
          throw new AppError('MISSING_REQUIRED_FIELD', 'video (a file part) is required', { field: 'video' });
        // the request, for its idempotency key: the form fields and the file (by its SHA-256)
        const body = { ...fields, video: { sha256: upload.sha256, bytes: upload.bytes } };
        const replayed = await claimIdempotencyKey(ctx, request, reply, body).catch(async (error) => {
          await fs.promises.rm(upload.file, { force: true });
          throw error;
        });
        if (replayed) {
          await fs.promises.rm(upload.file, { force: true });
          return reply;
        }
        const accepted = await ctx.videos.submitUpload(principal, upload, fields, {
          requestId: request.idempotencyKey,
        });
        return reply.code(202).send(accepted);
      },
    );

    app.get(
      '/v1/video/status/:decisionId',
      {
        schema: {
          tags: ['video'],
          summary: 'Progress of a video check',
          params: Type.Object({ decisionId: Type.String() }),
          response: { 200: VideoStatus, ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request) => ctx.videos.status(principalOf(request), request.params.decisionId),
    );

    app.get(
      '/v1/video/result/:decisionId',
      {
        schema: {
          tags: ['video'],
          summary: 'Result of a video check',
          description:
            '200 with the final result when completed; 202 with the status body while processing; 200 with ' +
            '`status: "failed"` and `error { code, message }` when it failed. Frames that triggered carry ' +
            '`evidence { url, expiresAt }`.',
          params: Type.Object({ decisionId: Type.String() }),
          response: { 200: VideoResult, 202: VideoStatus, ...errorResponses(401, 403, 404, 429) },
        },
      },
      async (request, reply) => {
        const { status, body } = await ctx.videos.result(principalOf(request), request.params.decisionId);
        return reply.code(status).send(body as never);
      },
    );

    app.get(
      '/v1/evidence/:token',
      {
        config: { public: true },
        schema: {
          tags: ['video'],
          summary:
            'A JPEG of a frame that triggered; no API key, valid until the expiry signed into the token',
          security: [],
          params: Type.Object({ token: Type.String() }),
          response: errorResponses(404),
        },
      },
      async (request, reply) => {
        const found = await ctx.videos.evidence.fetch(request.params.token);
        if (!found) throw new AppError('NOT_FOUND', 'No such evidence (unknown or expired)');
        const maxAge = Math.max(0, Math.floor((found.expiresAt.getTime() - Date.now()) / 1000));
        return reply
          .type('image/jpeg')
          .header('cache-control', `private, max-age=${maxAge}`)
          .send(found.bytes);
      },
    );
  };

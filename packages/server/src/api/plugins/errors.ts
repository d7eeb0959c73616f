import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../domain/errors.ts';
import { ProviderError } from '../../providers/provider.ts';

export function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
) {
  return reply.code(ERROR_STATUS[code]).send({
    error: { code, message, ...(details && { details }), requestId: request.id },
  });
}

/** Fastify's own errors, in the spec's vocabulary (the request gives what a message names, e.g. the body limit). */
const FASTIFY_CODES: Record<
  string,
  (request: FastifyRequest) => { code: ErrorCode; message: string; details?: Record<string, unknown> }
> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => ({
    code: 'INVALID_JSON',
    message: 'The request body is not valid JSON',
  }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => ({ code: 'INVALID_JSON', message: 'The request body is empty' }),
  FST_ERR_CTP_BODY_TOO_LARGE: (request) => ({
    code: 'CONTENT_TOO_LARGE',
    message: `The request body is larger than ${request.routeOptions.bodyLimit} bytes`,
    details: { reason: 'body', maxBytes: request.routeOptions.bodyLimit },
  }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => ({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported Content-Type; send application/json',
  }),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => ({
    code: 'INVALID_JSON',
    message: 'Content-Length does not match the body',
  }),
};

/** One error handler: spec codes for domain errors, no internals for anything unexpected. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
      if (error.headers) reply.headers(error.headers);
      return sendError(reply, request, error.code, error.message, error.details);
    }
    if (error instanceof ProviderError) {
      request.log.error({ err: error }, 'provider failed');
      return sendError(reply, request, 'PROVIDER_ERROR', 'The content provider failed; retry later', {
        provider: error.provider,
      });
    }
    const fastifyCode = (error as FastifyError).code;
    const mapped = fastifyCode ? FASTIFY_CODES[fastifyCode]?.(request) : undefined;
    if (mapped) return sendError(reply, request, mapped.code, mapped.message, mapped.details);
    if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
      return sendError(reply, request, 'INVALID_JSON', 'The request body is not valid JSON');
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return sendError(reply, request, 'INVALID_PARAMETER', 'The request is not valid');
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, request, 'INTERNAL_ERROR', 'An internal error occurred');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}

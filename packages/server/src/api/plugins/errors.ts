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

/** An error as the API names it: what the one error handler renders, and what compatibility routes re-shape. */
export interface DescribedError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Maps any error to the spec's vocabulary; logs what is unexpected (never with internals in the answer). */
export function describeError(
  error: FastifyError | AppError | Error,
  request: FastifyRequest,
): DescribedError {
  if (error instanceof AppError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.details && { details: error.details }),
      ...(error.headers && { headers: error.headers }),
    };
  }
  if (error instanceof ProviderError) {
    request.log.error({ err: error }, 'provider failed');
    // which providers were tried and how each failed (messages name statuses and timeouts, never keys)
    const attempts = (error as { attempts?: { provider: string; outcome: string; error?: string }[] })
      .attempts;
    return {
      code: 'PROVIDER_ERROR',
      message: 'The content provider failed; retry later',
      details: {
        provider: error.provider,
        ...(attempts && {
          attempts: attempts
            .filter((a) => a.outcome === 'failed')
            .map((a) => ({ provider: a.provider, error: a.error })),
        }),
      },
    };
  }
  const fastifyCode = (error as FastifyError).code;
  const mapped = fastifyCode ? FASTIFY_CODES[fastifyCode]?.(request) : undefined;
  if (mapped) return mapped;
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return { code: 'INVALID_JSON', message: 'The request body is not valid JSON' };
  }
  const status = (error as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) {
    return { code: 'INVALID_PARAMETER', message: 'The request is not valid' };
  }
  request.log.error({ err: error }, 'unexpected error');
  return { code: 'INTERNAL_ERROR', message: 'An internal error occurred' };
}

/**
 * The error handler of a compatibility route: the error described and its headers set as the one handler does, its
 * status with validation errors (422) as 400 (as OpenAI and Google answer them), and `render` gives the body in the
 * foreign API's shape.
 */
export function compatErrorHandler(render: (described: DescribedError, status: number) => unknown) {
  return (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => {
    const described = describeError(error, request);
    if (described.headers) reply.headers(described.headers);
    const status = ERROR_STATUS[described.code] === 422 ? 400 : ERROR_STATUS[described.code];
    return reply.code(status).send(render(described, status));
  };
}

/** One error handler: spec codes for domain errors, no internals for anything unexpected. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    const described = describeError(error, request);
    if (described.headers) reply.headers(described.headers);
    return sendError(reply, request, described.code, described.message, described.details);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}

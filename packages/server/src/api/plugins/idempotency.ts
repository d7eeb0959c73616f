import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { resolveIdempotencyKey } from '../../domain/content.ts';
import { AppError } from '../../domain/errors.ts';
import { IDEMPOTENCY_RETENTION_MS } from '../../storage/repositories/idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
    idempotencyClaimed: boolean;
  }
}

/** A claim whose request has not finished in this time is considered abandoned (its process died). */
const LOCK_MS = 10 * 60_000;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => k !== 'requestId' && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(request: FastifyRequest): string {
  return createHash('sha256')
    .update(
      `${request.method} ${request.routeOptions.url}\n${canonical(request.params)}\n${canonical(request.body)}`,
    )
    .digest('hex');
}

/**
 * Idempotency keys (decisions §5): the first request with a key claims it; a repeat with the same body gets the
 * stored response with `Idempotent-Replayed: true`; a different body is 422; a repeat while the first runs is 409.
 * Only successful responses are kept, so a failed request can be retried with the same key.
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('idempotencyClaimed', false);

  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config.idempotent || !request.principal) return;
    const header = request.headers['idempotency-key'];
    const body = request.body as Record<string, unknown> | undefined;
    const key = resolveIdempotencyKey(
      body && typeof body === 'object' ? body.requestId : undefined,
      Array.isArray(header) ? header[0] : header,
    );
    request.idempotencyKey = key;
    if (key === null) return;
    const claim = await ctx.idempotency.claim(request.principal.accountId, key, requestHash(request), {
      now: new Date(),
      lockMs: LOCK_MS,
      retentionMs: IDEMPOTENCY_RETENTION_MS,
    });
    switch (claim.kind) {
      case 'claimed':
        request.idempotencyClaimed = true;
        return;
      case 'mismatch':
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'This idempotency key was used with a different request',
          {
            idempotencyKey: key,
          },
        );
      case 'in_use':
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this idempotency key is still running', {
          idempotencyKey: key,
        });
      case 'replay':
        reply
          .code(claim.statusCode)
          .header('idempotent-replayed', 'true')
          .header('content-type', 'application/json; charset=utf-8');
        return reply.send(claim.response);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.idempotencyClaimed || !request.principal || request.idempotencyKey === null) return payload;
    request.idempotencyClaimed = false;
    const { accountId } = request.principal;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      await ctx.idempotency.complete(accountId, request.idempotencyKey, reply.statusCode, payload);
    } else {
      await ctx.idempotency.release(accountId, request.idempotencyKey);
    }
    return payload;
  });
}

import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { resolveIdempotencyKey } from '../../domain/content.ts';
import { AppError } from '../../domain/errors.ts';
import { requireScope } from '../../domain/principal.ts';
import { IDEMPOTENCY_RETENTION_MS } from '../../storage/repositories/idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
    idempotencyClaimed: boolean;
    /**
     * What a replay answers, when it must differ from the first answer: a doNotStore decision's stored form (no
     * content, highlight or OCR text), since the stored response is storage like any other.
     */
    idempotencyStoredBody: unknown;
  }
}

/** A claim whose request has not finished in this time is considered abandoned (its process died). */
const LOCK_MS = 10 * 60_000;

/** The body in a canonical form (keys sorted); the top-level `requestId` is the idempotency key itself, not data. */
function canonical(value: unknown, top = false): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v)).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([k, v]) => !(top && k === 'requestId') && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The request's fingerprint; JSON bodies nest at most JSON_MAX_DEPTH levels (json-body.ts), so `canonical` cannot overflow the stack. */
function requestHash(request: FastifyRequest, body: unknown = request.body): string {
  return createHash('sha256')
    .update(
      `${request.method} ${request.routeOptions.url}\n${canonical(request.params)}\n${canonical(body, true)}`,
    )
    .digest('hex');
}

/**
 * Claims the request's idempotency key for a request whose body is `body`: returns false to go on, or true when
 * the stored response of the first request was sent (a replay). A different earlier request with the key is 422,
 * one still running is 409. Routes marked `idempotent: 'after-body'` (multipart uploads) call it themselves once
 * they have read the body, with the form fields and the file's SHA-256 as `body`.
 */
export async function claimIdempotencyKey(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  body: unknown,
) {
  const key = request.idempotencyKey;
  if (key === null || !request.principal) return false;
  const claim = await ctx.idempotency.claim(request.principal.accountId, key, requestHash(request, body), {
    now: new Date(),
    lockMs: LOCK_MS,
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  switch (claim.kind) {
    case 'claimed':
      request.idempotencyClaimed = true;
      return false;
    case 'mismatch':
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used with a different request', {
        idempotencyKey: key,
      });
    case 'in_use':
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this idempotency key is still running', {
        idempotencyKey: key,
      });
    case 'replay':
      await reply
        .code(claim.statusCode)
        .header('idempotent-replayed', 'true')
        .header('content-type', 'application/json; charset=utf-8')
        .send(claim.response);
      return true;
  }
}

function withoutField(payload: string, field: string): string {
  try {
    const { [field]: _secret, ...rest } = JSON.parse(payload) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return payload;
  }
}

/**
 * Idempotency keys (decisions §5): the first request with a key claims it; a repeat with the same body gets the
 * stored response with `Idempotent-Replayed: true`; a different body is 422; a repeat while the first runs is 409.
 * Only successful responses are kept, so a failed request can be retried with the same key.
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('idempotencyClaimed', false);
  app.decorateRequest('idempotencyStoredBody', null);

  app.addHook('preHandler', async (request, reply) => {
    const { idempotent, scope } = request.routeOptions.config;
    if (!idempotent || !request.principal) return;
    // a key without the route's permission never sees another key's stored response (nor learns it exists)
    if (scope) requireScope(request.principal, scope);
    const header = request.headers['idempotency-key'];
    const body = request.body as Record<string, unknown> | undefined;
    const key = resolveIdempotencyKey(
      body && typeof body === 'object' ? body.requestId : undefined,
      Array.isArray(header) ? header[0] : header,
    );
    request.idempotencyKey = key;
    if (key === null || idempotent === 'after-body') return;
    if (await claimIdempotencyKey(ctx, request, reply, request.body)) return reply;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.idempotencyClaimed || !request.principal || request.idempotencyKey === null) return payload;
    request.idempotencyClaimed = false;
    const { accountId } = request.principal;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      const secret = request.routeOptions.config.idempotentSecret;
      // the stored copy never holds a secret shown once: a replay answers without it
      const stored =
        request.idempotencyStoredBody !== null
          ? JSON.stringify(request.idempotencyStoredBody)
          : secret
            ? withoutField(payload, secret)
            : payload;
      await ctx.idempotency.complete(accountId, request.idempotencyKey, reply.statusCode, stored);
    } else {
      await ctx.idempotency.release(accountId, request.idempotencyKey);
    }
    return payload;
  });
}

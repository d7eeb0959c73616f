import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../domain/errors.ts';

/**
 * Per-key rate limits (decisions §9): every authenticated response carries X-RateLimit-Limit / -Remaining / -Reset
 * of the sustained window; over a limit → 429 with Retry-After and details.retryAfter. Runs right after
 * authentication, before the body is read.
 */
export function registerRateLimits(app: FastifyInstance, ctx: AppContext): void {
  const settings = ctx.config.rateLimit;
  if (!settings.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    const principal = request.principal;
    if (!principal) return;
    const limits = principal.rateLimit ?? {
      perMinute: settings.perMinute,
      burstPerSecond: settings.burstPerSecond,
    };
    const decision = await ctx.rateLimiter.consume(principal.keyId, limits);
    switch (decision.kind) {
      case 'allowed':
        reply.header('x-ratelimit-limit', decision.limit);
        reply.header('x-ratelimit-remaining', decision.remaining);
        reply.header('x-ratelimit-reset', decision.resetAt);
        return;
      case 'limited':
        throw new AppError(
          decision.code,
          decision.code === 'BURST_LIMIT_EXCEEDED'
            ? `More than ${limits.burstPerSecond} requests in one second`
            : `More than ${limits.perMinute} requests in one minute`,
          {
            retryAfter: decision.retryAfter,
            limit: decision.exceeded,
            window: decision.code === 'BURST_LIMIT_EXCEEDED' ? 'second' : 'minute',
          },
          {
            'retry-after': String(decision.retryAfter),
            'x-ratelimit-limit': String(decision.limit),
            'x-ratelimit-remaining': String(decision.remaining),
            'x-ratelimit-reset': String(decision.resetAt),
          },
        );
      case 'unavailable':
        request.log.warn({ err: decision.error }, 'rate-limit store unavailable');
        if (settings.onRedisError === 'closed') {
          throw new AppError(
            'SERVICE_UNAVAILABLE',
            'Rate limiting is unavailable; retry shortly',
            { retryAfter: 1 },
            {
              'retry-after': '1',
            },
          );
        }
        reply.header('x-ratelimit-limit', limits.perMinute);
        return;
    }
  });
}

import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';

export interface KeyLimits {
  perMinute: number;
  burstPerSecond: number;
}

/** The outcome of one request against a key's limits: expected outcomes are values, not exceptions. */
export type RateDecision =
  | { kind: 'allowed'; limit: number; remaining: number; resetAt: number }
  | {
      kind: 'limited';
      code: 'RATE_LIMIT_EXCEEDED' | 'BURST_LIMIT_EXCEEDED';
      limit: number;
      resetAt: number;
      retryAfter: number;
    }
  | { kind: 'unavailable'; error: unknown };

export interface RateLimiter {
  consume(keyId: string, limits: KeyLimits): Promise<RateDecision>;
}

type LimiterFactory = (points: number, duration: number, prefix: string) => RateLimiterAbstract;

/**
 * Per-key limits on rate-limiter-flexible: a burst window of 1 s and a sustained window of 60 s. Limiter instances are cached per limit value, since
 * keys may carry their own overrides; the stored counters are keyed by API key ID alone.
 */
export class FlexibleRateLimiter implements RateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly factory: LimiterFactory,
    private readonly prefix: string,
  ) {}

  private limiter(points: number, duration: number): RateLimiterAbstract {
    const id = `${duration}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.factory(points, duration, `${this.prefix}:${duration === 1 ? 'burst' : 'minute'}`);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async consume(keyId: string, limits: KeyLimits): Promise<RateDecision> {
    const now = Date.now();
    // Both windows are consumed at once (one round trip's latency with Redis). A request refused for bursting
    // still counts toward its minute: it was made.
    const [burst, minute] = await Promise.allSettled([
      this.limiter(limits.burstPerSecond, 1).consume(keyId),
      this.limiter(limits.perMinute, 60).consume(keyId),
    ]);
    for (const outcome of [burst, minute]) {
      if (outcome.status === 'rejected' && !(outcome.reason instanceof RateLimiterRes)) {
        return { kind: 'unavailable', error: outcome.reason };
      }
    }
    if (burst.status === 'rejected') {
      const res = burst.reason as RateLimiterRes;
      return {
        kind: 'limited',
        code: 'BURST_LIMIT_EXCEEDED',
        limit: limits.perMinute,
        resetAt: Math.ceil((now + res.msBeforeNext) / 1000),
        retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      };
    }
    if (minute.status === 'rejected') {
      const res = minute.reason as RateLimiterRes;
      return {
        kind: 'limited',
        code: 'RATE_LIMIT_EXCEEDED',
        limit: limits.perMinute,
        resetAt: Math.ceil((now + res.msBeforeNext) / 1000),
        retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      };
    }
    return {
      kind: 'allowed',
      limit: limits.perMinute,
      remaining: minute.value.remainingPoints,
      resetAt: Math.ceil((now + minute.value.msBeforeNext) / 1000),
    };
  }
}

/** In-process counters: the default, for a single instance. */
export function memoryRateLimiter(prefix = 'verdict:rl'): RateLimiter {
  return new FlexibleRateLimiter(
    (points, duration, keyPrefix) => new RateLimiterMemory({ points, duration, keyPrefix }),
    prefix,
  );
}

/** Counters in Redis, shared by every instance that uses the same Redis and prefix. */
export function redisRateLimiter(client: Redis, prefix = 'verdict:rl'): RateLimiter {
  return new FlexibleRateLimiter(
    (points, duration, keyPrefix) =>
      new RateLimiterRedis({ storeClient: client, points, duration, keyPrefix }),
    prefix,
  );
}

import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
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
      /** the limit that was exceeded: requests per second (burst) or per minute */
      exceeded: number;
      /** the sustained window, as on every response: its limit, what is left of it and when it resets */
      limit: number;
      remaining: number;
      resetAt: number;
      retryAfter: number;
    }
  | { kind: 'unavailable'; error: unknown };

export interface RateLimiter {
  consume(keyId: string, limits: KeyLimits): Promise<RateDecision>;
}

type LimiterFactory = (points: number, duration: number, prefix: string) => RateLimiterAbstract;

/** The counters never refuse by themselves: each key's own limits are compared with the count (see consume). */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Per-key limits on rate-limiter-flexible: a burst window of 1 s and a sustained window of 60 s. One counter per
 * window and API key ID, whatever the key's limits: a key whose limits change keeps its count (a counter per limit
 * value would start again from zero), so the limits are compared here with the count the counter returns.
 */
export class FlexibleRateLimiter implements RateLimiter {
  private readonly burst: RateLimiterAbstract;
  private readonly minute: RateLimiterAbstract;

  constructor(factory: LimiterFactory, prefix: string) {
    this.burst = factory(UNBOUNDED, 1, `${prefix}:burst`);
    this.minute = factory(UNBOUNDED, 60, `${prefix}:minute`);
  }

  async consume(keyId: string, limits: KeyLimits): Promise<RateDecision> {
    const now = Date.now();
    // Both windows are counted at once (one round trip's latency with Redis). A refused request still counts: it
    // was made.
    let burst: RateLimiterRes;
    let minute: RateLimiterRes;
    try {
      [burst, minute] = await Promise.all([this.burst.consume(keyId), this.minute.consume(keyId)]);
    } catch (error) {
      return { kind: 'unavailable', error };
    }
    const minuteReset = Math.ceil((now + minute.msBeforeNext) / 1000);
    const retryAfter = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    if (minute.consumedPoints > limits.perMinute) {
      // over the sustained limit (whatever the burst window says): waiting out a second would not help
      return {
        kind: 'limited',
        code: 'RATE_LIMIT_EXCEEDED',
        exceeded: limits.perMinute,
        limit: limits.perMinute,
        remaining: 0,
        resetAt: minuteReset,
        retryAfter: retryAfter(minute),
      };
    }
    const remaining = limits.perMinute - minute.consumedPoints;
    if (burst.consumedPoints > limits.burstPerSecond) {
      return {
        kind: 'limited',
        code: 'BURST_LIMIT_EXCEEDED',
        exceeded: limits.burstPerSecond,
        limit: limits.perMinute,
        remaining,
        resetAt: minuteReset,
        retryAfter: retryAfter(burst),
      };
    }
    return { kind: 'allowed', limit: limits.perMinute, remaining, resetAt: minuteReset };
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

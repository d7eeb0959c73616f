import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createContext } from '../src/context.ts';
import { memoryRateLimiter, type RateLimiter, redisRateLimiter } from '../src/limits/rate-limiter.ts';
import { ProviderError } from '../src/providers/provider.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { engines, TEST_DATABASE_URL, TEST_REDIS_URL } from './helpers/databases.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

if (!TEST_REDIS_URL)
  process.stderr.write('[verdict tests] TEST_REDIS_URL is not set: Redis rate-limit tests are skipped\n');

const redisClients: Redis[] = [];
function limiterFor(
  store: 'memory' | 'redis',
  prefix = `verdict-test:${randomBytes(4).toString('hex')}`,
): RateLimiter {
  if (store === 'memory') return memoryRateLimiter();
  const client = new Redis(TEST_REDIS_URL!, { maxRetriesPerRequest: 1 });
  redisClients.push(client);
  return redisRateLimiter(client, prefix);
}
afterAll(async () => {
  for (const client of redisClients) {
    const keys = await client.keys('verdict-test:*');
    if (keys.length) await client.del(...keys);
    client.disconnect();
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stores = ['memory', ...(TEST_REDIS_URL ? ['redis' as const] : [])] as ('memory' | 'redis')[];

describe.each(stores)('rate limits (%s store)', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      overrides: { textProvider: new KeywordProvider(), rateLimiter: limiterFor(store) },
      config: { rateLimit: { enabled: true, perMinute: 1000, burstPerSecond: 100, onRedisError: 'open' } },
    });
  });
  afterAll(() => t.close());

  async function limitedKey(perMinute: number, burstPerSecond: number) {
    const res = await t.request('POST', '/v1/keys', {
      body: {
        name: 'limited',
        scopes: ['check', 'decisions:read'],
        rateLimit: { perMinute, burstPerSecond },
      },
    });
    return res.body as { key: string; id: string };
  }
  const check = (key: string) =>
    t.request('POST', '/v1/check', { key, body: { content: 'hi', policyId: 'default' } });

  it('sends the sustained window headers on every authenticated response, errors included', async () => {
    const { key } = await limitedKey(5, 5);
    const before = Math.floor(Date.now() / 1000);
    const ok = await check(key);
    expect(ok.headers['x-ratelimit-limit']).toBe('5');
    expect(ok.headers['x-ratelimit-remaining']).toBe('4');
    const reset = Number(ok.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(before + 59);
    expect(reset).toBeLessThanOrEqual(before + 61);
    const missing = await t.request('GET', '/v1/decisions/dec_nope', { key });
    expect(missing.status).toBe(404);
    expect(missing.headers['x-ratelimit-remaining']).toBe('3');
    expect((await t.request('GET', '/healthz', { key: null })).headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('refuses a burst with 429 BURST_LIMIT_EXCEEDED, then recovers after the second', async () => {
    const { key } = await limitedKey(100, 2);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await check(key));
    expect(results.slice(0, 2).map((r) => r.status)).toEqual([200, 200]);
    const refused = results[2]!;
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('BURST_LIMIT_EXCEEDED');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.error.details).toEqual({ retryAfter: 1, limit: 2, window: 'second' });
    // the headers still describe the sustained window: the refused request counted too
    expect(refused.headers['x-ratelimit-limit']).toBe('100');
    expect(refused.headers['x-ratelimit-remaining']).toBe('97');
    await sleep(1100);
    expect((await check(key)).status).toBe(200);
  });

  it('refuses past the sustained limit with 429 RATE_LIMIT_EXCEEDED and Retry-After up to the window end', async () => {
    const { key } = await limitedKey(3, 100);
    for (let i = 0; i < 3; i++) expect((await check(key)).status).toBe(200);
    const refused = await check(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.error.details).toEqual({ retryAfter, limit: 3, window: 'minute' });
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('reports the sustained limit when both are exceeded (waiting out the second would not help)', async () => {
    const { key } = await limitedKey(2, 2);
    for (let i = 0; i < 2; i++) expect((await check(key)).status).toBe(200);
    const refused = await check(key);
    expect(refused.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(refused.body.error.details.window).toBe('minute');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(1);
  });

  it('keeps counting a key across a change of its limits (a new limit does not start a new count)', async () => {
    const { key, id } = await limitedKey(3, 100);
    for (let i = 0; i < 3; i++) expect((await check(key)).status).toBe(200);
    await t.request('PATCH', `/v1/keys/${id}`, {
      body: { rateLimit: { perMinute: 4, burstPerSecond: 100 } },
    });
    const fourth = await check(key);
    expect(fourth.status).toBe(200);
    expect(fourth.headers['x-ratelimit-remaining']).toBe('0');
    expect((await check(key)).status).toBe(429);
  });

  it('applies the service defaults to keys without an override, and PATCH changes a key', async () => {
    const plain = (await t.request('POST', '/v1/keys', { body: { name: 'plain', scopes: ['check'] } })).body;
    expect((await check(plain.key)).headers['x-ratelimit-limit']).toBe('1000');
    const patched = await t.request('PATCH', `/v1/keys/${plain.id}`, {
      body: { rateLimit: { perMinute: 2, burstPerSecond: 10 } },
    });
    expect(patched.body.rateLimit).toEqual({ perMinute: 2, burstPerSecond: 10 });
    expect((await check(plain.key)).headers['x-ratelimit-limit']).toBe('2');
    const bad = await t.request('PATCH', `/v1/keys/${plain.id}`, { body: { rateLimit: { perMinute: -1 } } });
    expect(bad.body.error.code).toBe('INVALID_PARAMETER');
  });
});

describe.skipIf(!TEST_REDIS_URL)('rate limits when Redis fails', () => {
  for (const [mode, status] of [
    ['open', 200],
    ['closed', 503],
  ] as const) {
    it(`fails ${mode} as configured`, async () => {
      const broken = new Redis('redis://127.0.0.1:1', {
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        lazyConnect: true,
      });
      broken.on('error', () => {});
      const t = await createTestApp({
        overrides: {
          textProvider: new KeywordProvider(),
          rateLimiter: redisRateLimiter(broken, 'verdict-test:broken'),
        },
        config: { rateLimit: { enabled: true, perMinute: 10, burstPerSecond: 10, onRedisError: mode } },
      });
      try {
        const res = await t.request('POST', '/v1/check', { body: { content: 'hi', policyId: 'default' } });
        expect(res.status).toBe(status);
        if (status === 503) expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      } finally {
        await t.close();
        broken.disconnect();
      }
    });
  }
});

describe.each(engines)('usage, quotas and trials (%s)', (engine) => {
  let t: TestApp;
  const provider = new KeywordProvider();
  beforeAll(async () => {
    t = await createTestApp({ engine, overrides: { textProvider: provider } });
  });
  afterAll(() => t.close());

  async function accountKey(body: Record<string, unknown>) {
    const account = (await t.request('POST', '/v1/accounts', { body: { name: 'metered', ...body } })).body;
    return t.newKey(['check', 'decisions:read'], account.accountId);
  }

  it('meters evaluations per month; GET /v1/usage shows them', async () => {
    const { key, accountId } = await accountKey({});
    for (let i = 0; i < 3; i++)
      await t.request('POST', '/v1/check', { key, body: { content: `m${i}`, policyId: 'default' } });
    await t.request('POST', '/v1/check', { key, body: { content: '', policyId: 'default' } }); // invalid: not counted
    const usage = await t.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({
      accountId,
      month: new Date().toISOString().slice(0, 7),
      evaluations: 3,
      breakdown: { text: 3, image: 0, videoFrames: 0 },
      monthlyQuota: null,
      remaining: null,
    });
    const past = await t.request('GET', '/v1/usage?month=2020-01', { key });
    expect(past.body.evaluations).toBe(0);
    expect((await t.request('GET', '/v1/usage?month=2020-13', { key })).body.error.code).toBe(
      'INVALID_PARAMETER',
    );
  });

  it('402 QUOTA_EXCEEDED once the quota is used, before any work; failures give units back', async () => {
    const { key } = await accountKey({ monthlyQuota: 3 });
    provider.failWith = new ProviderError('test', 'down');
    expect(
      (await t.request('POST', '/v1/check', { key, body: { content: 'x', policyId: 'default' } })).status,
    ).toBe(502);
    provider.failWith = null;
    for (let i = 0; i < 3; i++) {
      expect(
        (await t.request('POST', '/v1/check', { key, body: { content: `q${i}`, policyId: 'default' } }))
          .status,
      ).toBe(200);
    }
    const calls = provider.calls;
    const refused = await t.request('POST', '/v1/check', {
      key,
      body: { content: 'one more', policyId: 'default' },
    });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { quota: 3, used: 3, requested: 1 },
    });
    expect(provider.calls).toBe(calls);
    const usage = await t.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ evaluations: 3, monthlyQuota: 3, remaining: 0 });
    // Raising the quota lets the account go on.
    const me = (
      await t.request('GET', '/v1/account', { key: null, headers: { authorization: `Bearer ${key}` } })
    ).body;
    await t.request('PATCH', `/v1/accounts/${me.accountId}`, { body: { monthlyQuota: 4 } });
    expect(
      (await t.request('POST', '/v1/check', { key, body: { content: 'ok', policyId: 'default' } })).status,
    ).toBe(200);
  });

  it('a batch that would cross the quota is refused whole; one within it counts each item', async () => {
    const { key } = await accountKey({ monthlyQuota: 5 });
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `i${i}`, content: `item ${i}` }));
    const ok = await t.request('POST', '/v1/batch/check', {
      key,
      body: { policyId: 'default', items: items(3) },
    });
    expect(ok.status).toBe(200);
    const calls = provider.calls;
    const tooMany = await t.request('POST', '/v1/batch/check', {
      key,
      body: { policyId: 'default', items: items(3) },
    });
    expect(tooMany.status).toBe(402);
    expect(tooMany.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { used: 3, requested: 3 } });
    expect(tooMany.body.error.message).toMatch(/needs 3 evaluations; 2 of this month's 5 are left/);
    expect(provider.calls).toBe(calls);
    const asyncRefused = await t.request('POST', '/v1/batch/check/async', {
      key,
      body: { policyId: 'default', items: items(3), webhookUrl: 'https://93.184.216.34/hook' },
    });
    expect(asyncRefused.status).toBe(402);
    const usage = await t.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ evaluations: 3, remaining: 2, breakdown: { text: 3 } });
  });

  it('402 TRIAL_EXPIRED after trialEndsAt', async () => {
    const { key, accountId } = await accountKey({ trialEndsAt: new Date(Date.now() + 60_000).toISOString() });
    expect(
      (await t.request('POST', '/v1/check', { key, body: { content: 'x', policyId: 'default' } })).status,
    ).toBe(200);
    await t.request('PATCH', `/v1/accounts/${accountId}`, {
      body: { trialEndsAt: new Date(Date.now() - 1000).toISOString() },
    });
    const res = await t.request('POST', '/v1/check', { key, body: { content: 'x', policyId: 'default' } });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('TRIAL_EXPIRED');
    // a video is refused before its URL is fetched (this one could not be)
    const video = await t.request('POST', '/v1/video/check', {
      key,
      body: { videoUrl: 'https://video.invalid/a.mp4', policyId: 'default' },
    });
    expect(video.body.error.code).toBe('TRIAL_EXPIRED');
  });
});

describe.skipIf(!TEST_DATABASE_URL || !TEST_REDIS_URL)(
  'two instances on one PostgreSQL and one Redis',
  () => {
    it("hold one key's rate limit and one account's quota across both", async () => {
      const prefix = `verdict-test:${randomBytes(4).toString('hex')}`;
      const a = await createTestApp({
        engine: 'postgres',
        overrides: { textProvider: new KeywordProvider(), rateLimiter: limiterFor('redis', prefix) },
      });
      // The second instance: its own context, app, limiter client and connection pool, on the same database and Redis.
      const ctxB = await createContext(
        a.config,
        { bootstrapKey: ADMIN_KEY },
        {
          textProvider: new KeywordProvider(),
          rateLimiter: limiterFor('redis', prefix),
        },
      );
      const appB = await buildApp(ctxB);
      try {
        const account = (
          await a.request('POST', '/v1/accounts', { body: { name: 'shared', monthlyQuota: 7 } })
        ).body;
        const limited = (
          await a.request('POST', '/v1/keys', {
            body: {
              name: 'l',
              scopes: ['check'],
              accountId: account.accountId,
              rateLimit: { perMinute: 4, burstPerSecond: 50 },
            },
          })
        ).body.key;
        const send = (app: FastifyInstance, key: string, i: number) =>
          app.inject({
            method: 'POST',
            url: '/v1/check',
            headers: { authorization: `Bearer ${key}` },
            payload: { content: `r${i}`, policyId: 'default' },
          });
        const rate = await Promise.all(
          Array.from({ length: 8 }, (_, i) => send(i % 2 ? appB : a.app, limited, i)),
        );
        expect(rate.filter((r) => r.statusCode === 200)).toHaveLength(4);
        expect(rate.filter((r) => r.statusCode === 429)).toHaveLength(4);

        const unlimited = (
          await a.request('POST', '/v1/keys', {
            body: { name: 'u', scopes: ['check'], accountId: account.accountId },
          })
        ).body.key;
        const quota = await Promise.all(
          Array.from({ length: 8 }, (_, i) => send(i % 2 ? appB : a.app, unlimited, i)),
        );
        // 4 evaluations were already used by the rate-limited key; 3 remain of 7.
        expect(quota.filter((r) => r.statusCode === 200)).toHaveLength(3);
        expect(
          quota.filter((r) => r.statusCode === 402).every((r) => r.json().error.code === 'QUOTA_EXCEEDED'),
        ).toBe(true);
        expect(quota.filter((r) => r.statusCode === 402)).toHaveLength(5);
      } finally {
        await appB.close();
        await ctxB.close();
        await a.close();
      }
    });
  },
);

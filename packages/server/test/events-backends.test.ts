import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppContext, createContext } from '../src/context.ts';
import { RedisQueue } from '../src/jobs/redis-queue.ts';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { ADMIN_KEY, createTestApp, type TestApp } from './helpers/app.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver, type TestCa } from './helpers/https-receiver.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

const backends = [
  { name: 'SQLite + embedded queue', engine: 'sqlite', redis: false, workers: 1, enabled: true },
  {
    name: 'PostgreSQL + embedded queue, two worker processes',
    engine: 'postgres',
    redis: false,
    workers: 2,
    enabled: Boolean(TEST_DATABASE_URL),
  },
  {
    name: 'PostgreSQL + BullMQ on Redis, two worker processes',
    engine: 'postgres',
    redis: true,
    workers: 2,
    enabled: Boolean(TEST_DATABASE_URL && TEST_REDIS_URL),
  },
] as const;

describe.each(backends)('events, deliveries and async batches end to end ($name)', (backend) => {
  describe.skipIf(!backend.enabled)('on this backend', () => {
    let ca: TestCa;
    let receiver: HttpsReceiver;
    let t: TestApp;
    const extra: AppContext[] = [];
    const workers: RunningWorker[] = [];
    const prefix = `verdict-test-${randomBytes(6).toString('hex')}`;
    const redisQueue = () => new RedisQueue({ url: TEST_REDIS_URL!, prefix, leaseMs: 2000 });

    beforeAll(async () => {
      ca = createTestCa();
      receiver = new HttpsReceiver(ca);
      await receiver.start();
      const config = { allowPrivateUrls: true, caFile: ca.caFile, webhookRetrySchedule: [200, 400] };
      t = await createTestApp({
        engine: backend.engine,
        overrides: { textProvider: new KeywordProvider(), ...(backend.redis && { queue: redisQueue() }) },
        config,
      });
      workers.push(startWorker(t.ctx, { pollMs: 50 }));
      // Further "processes" on the same database (and Redis): their own pools, queues and workers.
      for (let i = 1; i < backend.workers; i++) {
        const ctx = await createContext(
          t.config,
          { bootstrapKey: ADMIN_KEY },
          { textProvider: new KeywordProvider(), ...(backend.redis && { queue: redisQueue() }) },
        );
        extra.push(ctx);
        workers.push(startWorker(ctx, { pollMs: 50 }));
      }
    });
    afterAll(async () => {
      for (const w of workers) await w.stop({ timeoutMs: 1000 });
      if (backend.redis) await (t.ctx.queue as RedisQueue).obliterate().catch(() => {});
      for (const ctx of extra) await ctx.close();
      await t?.close();
      await receiver?.stop();
      if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
    });

    it('fans every event out exactly once, completes the batch, and signs everything', async () => {
      expect(t.ctx.queue.kind).toBe(backend.redis ? 'redis' : 'database');
      const account = await t.request('GET', '/v1/account');
      receiver.secrets.push(account.body.signingSecret);
      const hook = await t.request('POST', '/v1/webhooks', {
        body: { url: `${receiver.url}/hook`, events: ['decision.created', 'moderation.completed'] },
      });
      expect(hook.status).toBe(201);
      receiver.secrets.push(hook.body.secret);
      const res = await t.request('POST', '/v1/batch/check/async', {
        body: {
          policyId: 'default',
          webhookUrl: `${receiver.url}/done`,
          items: Array.from({ length: 30 }, (_, i) => ({ id: `i${i}`, content: `item ${i}` })),
        },
      });
      expect(res.status).toBe(202);
      const single = await t.request('POST', '/v1/check', {
        body: { content: 'one more', policyId: 'default' },
      });
      const atHook = () => receiver.requests.filter((r) => r.path === '/hook');
      await receiver.waitFor(
        () => receiver.requests.some((r) => r.path === '/done') && atHook().length >= 32,
        20_000,
        'the completion and 31 decision events',
      );
      await new Promise((r) => setTimeout(r, 500));
      const status = await t.request('GET', `/v1/batch/${res.body.batchId}`);
      expect(status.body).toMatchObject({ status: 'completed', processedItems: 30 });
      const created = atHook().filter((r) => r.eventType === 'decision.created');
      const expected = new Set([single.body.decisionId, ...status.body.items.map((i: any) => i.decisionId)]);
      expect(new Set(created.map((r) => r.json.data.id))).toEqual(expected);
      // No double fan-out even with several relays and workers.
      expect(created).toHaveLength(31);
      expect(new Set(receiver.requests.map((r) => `${r.path} ${r.eventId}`)).size).toBe(
        receiver.requests.length,
      );
      expect(atHook().filter((r) => r.eventType === 'moderation.completed')).toHaveLength(1);
      expect(receiver.requests.filter((r) => r.path === '/done')).toHaveLength(1);
      expect(receiver.requests.every((r) => r.verifiedWith !== null)).toBe(true);
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json().checks.queue).toBe(true);
    });
  });
});

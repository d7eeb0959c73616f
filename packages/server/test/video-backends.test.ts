import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisQueue } from '../src/jobs/redis-queue.ts';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL, tempDir } from './helpers/databases.ts';
import { makeVideo, uploadVideo, videoEnded } from './helpers/videos.ts';

const backends = [
  { name: 'PostgreSQL + embedded queue', redis: false, enabled: Boolean(TEST_DATABASE_URL) },
  {
    name: 'PostgreSQL + BullMQ on Redis',
    redis: true,
    enabled: Boolean(TEST_DATABASE_URL && TEST_REDIS_URL),
  },
] as const;

/** The video lifecycle on the scale-out backends (the SQLite + embedded queue default is covered in video.test.ts). */
describe.each(backends)('video checks on $name', (backend) => {
  describe.skipIf(!backend.enabled)('on this backend', () => {
    let t: TestApp;
    let worker: RunningWorker;
    let dir: string;
    const prefix = `verdict-test-${randomBytes(6).toString('hex')}`;

    beforeAll(async () => {
      dir = tempDir('verdict-video-pg-');
      t = await createTestApp({
        engine: 'postgres',
        config: { imageWorkers: 1 },
        ...(backend.redis && {
          overrides: { queue: new RedisQueue({ url: TEST_REDIS_URL!, prefix, leaseMs: 2000 }) },
        }),
      });
      worker = startWorker(t.ctx, { pollMs: 50 });
    });
    afterAll(async () => {
      await worker?.stop({ timeoutMs: 1000 });
      if (backend.redis) await (t.ctx.queue as RedisQueue).obliterate().catch(() => {});
      await t?.close();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('uploads, analyses, meters the quota and serves evidence', async () => {
      expect(t.ctx.queue.kind).toBe(backend.redis ? 'redis' : 'database');
      const created = await t.request('POST', '/v1/accounts', { body: { name: 'pg', monthlyQuota: 50 } });
      const { key } = await t.newKey(['check', 'decisions:read', 'policies:write'], created.body.accountId);
      const policy = await t.request('POST', '/v1/policies', {
        key,
        body: {
          policyId: 'everything',
          yamlContent: 'name: everything\ncategories:\n  suggestive:\n    threshold: 0\n    action: block\n',
        },
      });
      expect(policy.status).toBe(201);
      const video = makeVideo(dir, 'two.mp4', { seconds: 2 });
      const res = await uploadVideo(
        t.app,
        key,
        { policyId: 'everything' },
        { name: 'two.mp4', bytes: fs.readFileSync(video) },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const { decisionId, estimatedFrames } = res.body;
      expect(estimatedFrames).toBe(2);
      const done = await videoEnded(t, key, decisionId);
      expect(done.body).toMatchObject({ status: 'completed', action: 'block', flagged: true });
      expect(done.body.results).toHaveLength(2);
      const evidence = await t.app.inject({
        method: 'GET',
        url: new URL(done.body.results[1].evidence.url).pathname,
      });
      expect(evidence.statusCode).toBe(200);
      expect(evidence.headers['content-type']).toBe('image/jpeg');
      const usage = await t.request('GET', '/v1/usage', { key });
      expect(usage.body).toMatchObject({ evaluations: 2, breakdown: { videoFrames: 2 } });
      const list = await t.request('GET', '/v1/decisions', { key });
      expect(list.body.decisions.map((d: any) => d.decisionId)).toEqual([decisionId]);
    });
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorker, startWorker } from '../src/jobs/worker.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { engines, tempDir } from './helpers/databases.ts';
import { serve, type TestServer } from './helpers/images.ts';
import { makeVideo, uploadVideo, videoEnded } from './helpers/videos.ts';

/**
 * What a key holder can park on the server: videos waiting or in analysis are capped per account (each holds its
 * file, up to 100 MB, and a place in the queue), and no new video is taken while the data disk is nearly full.
 */
describe.each(engines)('video admission limits (%s)', (engine) => {
  let dir: string;
  let clip: Buffer;
  let media: TestServer;
  const apps: TestApp[] = [];
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    dir = tempDir('verdict-video-limits-');
    clip = fs.readFileSync(makeVideo(dir, 'clip.mp4', { seconds: 2 }));
    media = await serve((_req, res) => void res.writeHead(200, { 'content-type': 'video/mp4' }).end(clip));
  });
  afterAll(async () => {
    await worker?.stop({ timeoutMs: 2000 });
    for (const app of apps) await app.close();
    await media?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function app(config: { maxPendingVideos?: number; minFreeDiskMb?: number }) {
    const t = await createTestApp({
      engine,
      config: { allowPrivateUrls: true, allowHttpMedia: true, imageWorkers: 1, ...config },
    });
    apps.push(t);
    return t;
  }

  const upload = (t: TestApp, key: string) =>
    uploadVideo(t.app, key, { policyId: 'default' }, { name: 'clip.mp4', bytes: clip });

  it('refuses a third video while two of the account are waiting (429), others are not held back', async () => {
    const t = await app({ maxPendingVideos: 2 });
    const { key } = await t.newKey(['check', 'decisions:read']);
    const first = await upload(t, key);
    const second = await t.request('POST', '/v1/video/check', {
      key,
      body: { videoUrl: `${media.url}/clip.mp4`, policyId: 'default' },
    });
    expect([first.status, second.status]).toEqual([202, 202]);

    const third = await upload(t, key);
    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { reason: 'videos_in_progress', processing: 2, maxProcessing: 2 },
    });
    expect(third.headers['retry-after']).toBe('10');
    const byUrl = await t.request('POST', '/v1/video/check', {
      key,
      body: { videoUrl: `${media.url}/clip.mp4`, policyId: 'default' },
    });
    expect(byUrl.status).toBe(429);
    // nothing was kept of the refused ones: only the two accepted videos, as files (SQLite) or, on PostgreSQL, in
    // the blob store that lets a worker on another machine read them (no file stays behind)
    const files = fs.readdirSync(path.join(t.config.dataDir, 'uploads')).filter((f) => f.endsWith('.video'));
    if (engine === 'postgres') {
      const rows = await sql<{
        key: string;
      }>`select distinct key from blobs where key like 'videos/%'`.execute(t.ctx.database.db);
      expect([rows.rows.length, files.length]).toEqual([2, 0]);
    } else {
      expect(files).toHaveLength(2);
    }

    const other = await t.newKey(['check']);
    expect((await upload(t, other.key)).status).toBe(202);

    // once the account's videos are analysed, it may send more
    worker = startWorker(t.ctx, { pollMs: 50 });
    for (const id of [first.body.decisionId, second.body.decisionId]) await videoEnded(t, key, id);
    expect((await upload(t, key)).status).toBe(202);
  }, 90_000);

  it('takes no new video while the data disk is nearly full (503, nothing stored or counted)', async () => {
    const t = await app({ minFreeDiskMb: 1_000_000_000 });
    const { key } = await t.newKey(['check', 'decisions:read']);
    const res = await upload(t, key);
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { reason: 'disk_space' } });
    const byUrl = await t.request('POST', '/v1/video/check', {
      key,
      body: { videoUrl: `${media.url}/clip.mp4`, policyId: 'default' },
    });
    expect(byUrl.body.error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { reason: 'disk_space' },
    });
    expect((await t.request('GET', '/v1/usage', { key })).body.evaluations).toBe(0);
    const uploads = path.join(t.config.dataDir, 'uploads');
    expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([]);
  });
});

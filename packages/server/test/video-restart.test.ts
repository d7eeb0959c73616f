import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.ts';
import { createTestCa, HttpsReceiver } from './helpers/https-receiver.ts';
import { serve } from './helpers/images.ts';
import { callApi, freePort, type ServerProcess, startServerProcess } from './helpers/process.ts';
import { makeVideo, waitUntil } from './helpers/videos.ts';

const KEY = 'vk_bootstrap_video_restart_000000000';

const call = (base: string, method: string, url: string, body?: unknown) =>
  callApi(base, KEY, method, url, body);

/** `verdict serve` killed with SIGKILL in the middle of a video: after a restart the video completes, once. */
describe('a video being analysed when the service dies', () => {
  const ca = createTestCa();
  const dir = tempDir('verdict-video-restart-');
  const dataDir = path.join(dir, 'data');
  let server: ServerProcess | null = null;
  afterAll(() => {
    server?.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('is taken up again after a restart and completes; never left processing', async () => {
    const video = makeVideo(dir, 'four.mp4', { seconds: 4 });
    const media = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'video/mp4' }).end(fs.readFileSync(video)),
    );
    const receiver = new HttpsReceiver(ca);
    await receiver.start();
    const env = {
      PORT: String(await freePort()),
      VERDICT_DATA_DIR: dataDir,
      VERDICT_BOOTSTRAP_KEY: KEY,
      VERDICT_ALLOW_PRIVATE_URLS: 'true',
      VERDICT_ALLOW_HTTP_MEDIA: 'true',
      VERDICT_CA_FILE: ca.caFile,
      VERDICT_JOB_LEASE_MS: '1500',
      VERDICT_IMAGE_WORKERS: '1',
      VERDICT_WEBHOOK_RETRY_SCHEDULE: '200ms,400ms',
    };
    try {
      server = await startServerProcess(env);
      receiver.secrets.push((await call(server.url, 'GET', '/v1/account')).body.signingSecret);
      const res = await call(server.url, 'POST', '/v1/video/check', {
        videoUrl: `${media.url}/four.mp4`,
        policyId: 'default',
        extractionStrategy: { frameInterval: 0.1 },
        webhookUrl: `${receiver.url}/done`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.estimatedFrames).toBe(40);
      const id = res.body.decisionId as string;

      const base = server.url;
      const during = await waitUntil(
        () => call(base, 'GET', `/v1/video/status/${id}`),
        (s) => s.body.progress.framesProcessed > 0,
        45_000,
        'first frames',
      );
      server.child.kill('SIGKILL');
      await server.exited;
      server = null;
      expect(during.body.status).toBe('processing');
      expect(during.body.progress.framesProcessed).toBeLessThan(40);

      server = await startServerProcess(env);
      const after = server.url;
      const done = await waitUntil(
        () => call(after, 'GET', `/v1/video/result/${id}`),
        (r) => r.status === 200,
        45_000,
        'the video to finish after the restart',
      );
      expect(done.body).toMatchObject({ decisionId: id, status: 'completed', safe: true });
      expect(done.body.results).toHaveLength(40);
      expect(done.body.results.map((f: any) => f.frameNumber)).toEqual([...Array(40).keys()]);
      const status = await call(after, 'GET', `/v1/video/status/${id}`);
      expect(status.body.progress).toEqual({ framesProcessed: 40, framesTotal: 40, percentComplete: 100 });
      const list = await call(after, 'GET', '/v1/decisions?limit=100');
      expect(list.body.decisions.filter((d: any) => d.decisionId === id)).toHaveLength(1);
      await receiver.waitFor(
        () => receiver.requests.some((r) => r.path === '/done' && r.json?.data?.id === id),
        15_000,
        'moderation.completed',
      );
      const event = receiver.requests.find((r) => r.path === '/done')!;
      expect(event.verifiedWith).not.toBeNull();
      expect(event.json).toMatchObject({ type: 'moderation.completed', data: { id, status: 'completed' } });
      // The local copy of the video is gone once it is done.
      expect(fs.readdirSync(path.join(dataDir, 'uploads')).filter((f) => f.endsWith('.video'))).toEqual([]);
    } finally {
      server?.child.kill('SIGKILL');
      await server?.exited;
      server = null;
      await media.close();
      await receiver.stop();
    }
  }, 90_000);
});

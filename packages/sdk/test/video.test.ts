import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../server/test/helpers/databases.ts';
import { makeVideo } from '../../server/test/helpers/videos.ts';
import { NotFoundError, UnprocessableEntityError, Verdict, type VideoStatus } from '../src/index.ts';
import { FaultServer } from './helpers/fault-server.ts';
import { type RunningVerdict, startVerdict } from './helpers/server.ts';

/** Video checks through the SDK against a real server: real ffmpeg, the real image model, a real media server. */
describe('video against a real server', () => {
  let dir: string;
  let clip: string;
  let server: RunningVerdict;
  let media: http.Server;
  let mediaUrl: string;
  let client: Verdict;

  beforeAll(async () => {
    dir = tempDir('verdict-sdk-video-');
    clip = makeVideo(dir, 'clip.mp4', { seconds: 2, rate: 5 });
    media = http.createServer((req, res) => {
      const file = path.join(dir, path.basename(req.url ?? ''));
      if (!fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'video/mp4' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
    mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
    server = await startVerdict({ allowHttpMedia: true, imageWorkers: 1 });
    client = new Verdict({ apiKey: server.adminKey, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => media?.close(resolve));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('upload (FormData) → waitForResult: completed with one result per sampled frame', async () => {
    const accepted = await client.video.upload({
      video: new Uint8Array(fs.readFileSync(clip)),
      filename: 'clip.mp4',
      policyId: 'default',
      frameInterval: 0.5,
    });
    expect(accepted).toMatchObject({ status: 'processing', decisionId: expect.stringMatching(/^dec_/) });
    expect(accepted.estimatedFrames).toBeGreaterThan(0);
    const seen: VideoStatus[] = [];
    const result = await client.video.waitForResult(accepted.decisionId, {
      pollInterval: 100,
      maxWait: 60_000,
      onProgress: (s) => seen.push(s),
    });
    expect(result.status).toBe('completed');
    expect(result.results?.length).toBe(accepted.estimatedFrames);
    expect(typeof result.safe).toBe('boolean');
    for (const s of seen) expect(s.status).toBe('processing');
    const status = await client.video.status(accepted.decisionId);
    expect(status).toMatchObject({ status: 'completed', progress: { percentComplete: 100 } });
  });

  it('check by URL, and the errors of the video endpoints', async () => {
    const accepted = await client.video.check({
      videoUrl: `${mediaUrl}/clip.mp4`,
      policyId: 'default',
      extractionStrategy: { frameInterval: 1, maxFrames: 2 },
    });
    const result = await client.video.waitForResult(accepted.decisionId, {
      pollInterval: 100,
      maxWait: 60_000,
    });
    expect(result).toMatchObject({ status: 'completed', decisionId: accepted.decisionId });
    const missing = await client.video.status('dec_missing').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    const notVideo = await client.video
      .upload({ video: new TextEncoder().encode('not a video'), policyId: 'default' })
      .catch((e) => e);
    expect(notVideo).toBeInstanceOf(UnprocessableEntityError);
    expect(notVideo.code).toBe('INVALID_CONTENT');
  });
});

describe('video polling and evidence against a scripted server', () => {
  const fake = new FaultServer();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());

  const status = (framesProcessed: number) => ({
    decisionId: 'dec_v',
    status: 'processing',
    progress: { framesProcessed, framesTotal: 4, percentComplete: framesProcessed * 25 },
    estimatedCompletion: '2026-01-01T00:00:00.000Z',
    createdAt: '2026-01-01T00:00:00.000Z',
  });

  it('waitForResult reports each 202 status to onProgress, then resolves with the 200 result', async () => {
    fake.respond(
      { status: 202, body: status(1) },
      { status: 202, body: status(3) },
      { status: 200, body: { decisionId: 'dec_v', status: 'completed', safe: true, results: [] } },
    );
    const client = new Verdict({ apiKey: 'k', baseUrl: fake.url });
    const seen: number[] = [];
    const result = await client.video.waitForResult('dec_v', {
      pollInterval: 10,
      onProgress: (s) => seen.push(s.progress.framesProcessed),
    });
    expect(seen).toEqual([1, 3]);
    expect(result).toMatchObject({ status: 'completed', safe: true });
    expect(fake.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1/video/result/dec_v'));
  });

  it('waitForResult gives up after maxWait with WAIT_TIMEOUT', async () => {
    fake.respond({ status: 202, body: status(0) });
    const client = new Verdict({ apiKey: 'k', baseUrl: fake.url });
    const error = await client.video
      .waitForResult('dec_v', { pollInterval: 20, maxWait: 100 })
      .catch((e) => e);
    expect(error.code).toBe('WAIT_TIMEOUT');
  });

  it('upload sends multipart fields before the file; evidence returns the JPEG bytes', async () => {
    fake.respond({ status: 202, body: { decisionId: 'dec_u', status: 'processing' } });
    const client = new Verdict({ apiKey: 'k', baseUrl: fake.url });
    await client.video.upload(
      { video: new Uint8Array([1, 2, 3]), policyId: 'default', maxDurationSeconds: 60 },
      { idempotencyKey: 'up-1' },
    );
    const [req] = fake.requests;
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req!.headers['idempotency-key']).toBe('up-1');
    const body = req!.body;
    expect(body.indexOf('name="policyId"')).toBeLessThan(body.indexOf('name="video"'));
    expect(body.indexOf('name="maxDurationSeconds"')).toBeLessThan(body.indexOf('name="video"'));
    expect(body).toContain('filename="video.mp4"');

    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2]);
    const server = http.createServer((q, s) => {
      s.writeHead(q.url === '/v1/evidence/tok_1' ? 200 : 404, { 'content-type': 'image/jpeg' }).end(jpeg);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const evidenceClient = new Verdict({
        apiKey: 'k',
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      });
      const blob = await evidenceClient.video.evidence('https://verdict.example/v1/evidence/tok_1');
      expect(Buffer.from(await blob.arrayBuffer())).toEqual(jpeg);
      expect(blob.type).toBe('image/jpeg');
    } finally {
      server.close();
    }
  });
});

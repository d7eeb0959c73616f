import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { dataUri, photo, SVG, serve, type TestServer } from './helpers/images.ts';
import { KeywordProvider } from './helpers/keyword-provider.ts';

/**
 * POST /v1/check/multimodal (text and images; the video item is tested with the video checks) with the real image model. Text uses the keyword test provider so that the text's
 * verdict is exact. Images are served over http from 127.0.0.1, which needs the operator switches
 * VERDICT_ALLOW_PRIVATE_URLS and VERDICT_ALLOW_HTTP_MEDIA (set here through the test config).
 */
describe('POST /v1/check/multimodal', () => {
  let t: TestApp;
  let server: TestServer;
  const provider = new KeywordProvider();
  let jpeg: Buffer;
  let png: Buffer;
  const held: Array<() => void> = [];
  let inFlight = 0;
  let maxInFlight = 0;

  beforeAll(async () => {
    jpeg = await photo('jpeg');
    png = await photo('png', 200, 200);
    server = await serve((req, res) => {
      if (req.url?.startsWith('/gated/')) {
        // Holds every answer until three requests are waiting: proves the images are fetched concurrently.
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const release = () => {
          inFlight--;
          res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
        };
        held.push(release);
        if (held.length >= 3) {
          for (const r of held.splice(0)) r();
        } else {
          setTimeout(() => {
            const at = held.indexOf(release);
            if (at >= 0) for (const r of held.splice(at, 1)) r();
          }, 3000);
        }
        return;
      }
      if (req.url === '/a.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG);
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
    });
    t = await createTestApp({
      config: { allowPrivateUrls: true, allowHttpMedia: true },
      overrides: { textProvider: provider },
    });
  });
  afterAll(async () => {
    await t?.close();
    await server?.close();
  });

  const mm = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.request('POST', '/v1/check/multimodal', {
      body: { policyId: 'default', ...body },
      ...(headers && { headers }),
    });

  it('judges text and images into one decision with per-item results; the most severe item wins', async () => {
    const url = `${server.url}/photo.jpg`;
    const res = await mm({
      text: 'look at this hate:0.9',
      images: [dataUri(png, 'image/png'), url],
      context: { language: 'en', useCase: 'social_post', userId: 'u1', userReputation: 0.4, locale: 'en-GB' },
      metadata: { postId: 'p1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body;
    expect(r.decisionId).toMatch(/^dec_/);
    expect(r).toMatchObject({
      safe: false,
      flagged: true,
      action: 'block',
      totalCost: 0,
      contentType: 'multimodal',
    });
    expect(typeof r.totalLatency).toBe('number');
    expect(r.results).toHaveLength(3);
    const [text, inline, fetched] = r.results;
    expect(text).toMatchObject({
      index: 0,
      contentType: 'text',
      action: 'block',
      flagged: true,
      safe: false,
    });
    expect(text.contentRef).toBeUndefined();
    expect(inline).toMatchObject({ index: 1, contentType: 'image', provider: 'local' });
    expect(inline.contentRef).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fetched).toMatchObject({ index: 2, contentType: 'image', contentRef: url });
    for (const image of [inline, fetched]) {
      expect(
        image.categories
          .filter((c: any) => c.evaluated)
          .map((c: any) => c.category)
          .sort(),
      ).toEqual(['sexual', 'suggestive']);
    }
    // Overall categories: the highest score per category over the items.
    const hate = r.categories.find((c: any) => c.category === 'hate');
    expect(hate).toMatchObject({ score: 0.9, triggered: true, evaluated: true });
    expect(r.media.map((m: any) => m.ref)).toEqual([inline.contentRef, url]);

    const stored = await t.request('GET', `/v1/decisions/${r.decisionId}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      contentType: 'multimodal',
      action: 'block',
      metadata: { postId: 'p1' },
    });
    expect(stored.body.results).toHaveLength(3);
    expect(stored.body.media).toHaveLength(2);
    expect(JSON.parse(stored.body.content)).toEqual({
      text: 'look at this hate:0.9',
      images: [inline.contentRef, url],
    });
    const curl = await t.request('GET', `/v1/decisions/${r.decisionId}/curl`);
    expect(curl.body.curl).toContain('/v1/check/multimodal');
  });

  it('replays under another policy from the stored item scores, fetching and evaluating nothing', async () => {
    const url = `${server.url}/photo.jpg`;
    const policy = await t.request('POST', '/v1/policies', {
      body: {
        policyId: 'lenient-hate',
        yamlContent:
          'name: Lenient\ncategories:\n  hate: { threshold: 0.95, action: warn }\n  sexual: { threshold: 0.99, action: flag }\n',
      },
    });
    expect(policy.status).toBe(201);
    const original = await mm({ text: 'look at this hate:0.9', images: [url] });
    expect(original.body.action).toBe('block');
    const fetches = server.total();
    const calls = provider.calls;
    const replay = await t.request('POST', `/v1/decisions/${original.body.decisionId}/replay`, {
      body: { policyId: 'lenient-hate' },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(server.total()).toBe(fetches);
    expect(provider.calls).toBe(calls);
    expect(replay.body).toMatchObject({
      action: 'allow',
      replayOf: original.body.decisionId,
      policyId: 'lenient-hate',
    });
    const stored = await t.request('GET', `/v1/decisions/${replay.body.decisionId}`);
    expect(stored.body.contentType).toBe('multimodal');
    expect(stored.body.results.map((r: any) => [r.contentType, r.action])).toEqual([
      ['text', 'allow'],
      ['image', 'allow'],
    ]);
    // the item scores are the original's, under the new policy's categories
    const score = (r: any, c: string) => r.categories.find((x: any) => x.category === c)?.score;
    expect(score(stored.body.results[0], 'hate')).toBe(0.9);
    expect(score(stored.body.results[1], 'sexual')).toBe(score(original.body.results[1], 'sexual'));
    expect(stored.body).not.toHaveProperty('replayData');
    // and back under the original policy: the original decision again
    const back = await t.request('POST', `/v1/decisions/${replay.body.decisionId}/replay`, {
      body: { policyId: 'default' },
    });
    expect(back.body.action).toBe('block');
    const backStored = await t.request('GET', `/v1/decisions/${back.body.decisionId}`);
    expect(backStored.body.results.map((r: any) => r.categories)).toEqual(
      original.body.results.map((r: any) => r.categories),
    );
  });

  it('accepts images alone and text alone', async () => {
    const images = await mm({ images: [dataUri(jpeg)] });
    expect(images.status, JSON.stringify(images.body)).toBe(200);
    expect(images.body.results).toHaveLength(1);
    expect(images.body.action).toBe(images.body.results[0].action);
    const text = await mm({ text: 'hello there' });
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({ safe: true, action: 'allow' });
    expect(text.body.media).toBeUndefined();
  });

  it('evaluates the items concurrently', async () => {
    maxInFlight = 0;
    const res = await mm({ images: [1, 2, 3].map((i) => `${server.url}/gated/${i}.jpg`) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(maxInFlight).toBe(3);
  });

  it('validates every item before evaluating any', async () => {
    const before = server.total();
    const res = await mm({ images: [`${server.url}/first.jpg`, dataUri(jpeg), 'data:image/png;base64,@@@'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_BASE64', details: { field: 'images[2]' } });
    expect(server.total()).toBe(before);
  });

  it('rejects 11 images with TOO_MANY_ITEMS, before fetching any', async () => {
    const before = server.total();
    const res = await mm({ images: Array.from({ length: 11 }, (_, i) => `${server.url}/${i}.jpg`) });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'TOO_MANY_ITEMS', details: { max: 10, count: 11 } });
    expect(server.total()).toBe(before);
  });

  it.each([
    [{}, 'MISSING_REQUIRED_FIELD'],
    [{ images: [] }, 'MISSING_REQUIRED_FIELD'],
    // an empty image list next to a video is not "nothing": the video is judged (here: refused for its scheme)
    [{ images: [], video: 'ftp://example.com/a.mp4' }, 'INVALID_VIDEO_URL'],
    [{ text: null, images: null }, 'MISSING_REQUIRED_FIELD'],
    [{ images: 'https://example.com/a.jpg' }, 'INVALID_CONTENT'],
    [{ images: [42] }, 'INVALID_CONTENT'],
    [{ images: [''] }, 'INVALID_CONTENT'],
    [{ images: [dataUri(SVG, 'image/svg+xml')] }, 'INVALID_CONTENT'],
    [{ text: '   ' }, 'INVALID_CONTENT'],
    [{ text: 'x'.repeat(32 * 1024 + 1) }, 'CONTENT_TOO_LARGE'],
    [{ text: 'hi', context: { language: 'xx' } }, 'UNSUPPORTED_LANGUAGE'],
    [{ text: 'hi', context: { userReputation: 'high' } }, 'INVALID_PARAMETER'],
    [{ text: 'hi', context: 'social' }, 'INVALID_PARAMETER'],
    [{ text: 'hi', metadata: [1] }, 'INVALID_METADATA'],
    [{ text: 'hi', policyId: 'no-such-policy' }, 'POLICY_NOT_FOUND'],
    [{ text: 'hi', policyId: undefined }, 'MISSING_REQUIRED_FIELD'],
  ])('rejects %j with %s', async (body, code) => {
    const res = await mm(body as Record<string, unknown>);
    expect(res.body.error?.code, JSON.stringify(res.body)).toBe(code);
    expect(res.status).toBe(code === 'POLICY_NOT_FOUND' ? 404 : 422);
  });

  it('renders a cURL command that reads each inline image from its own file', async () => {
    const res = await mm({ text: 'hi', images: [dataUri(jpeg), `${server.url}/a.jpg`, dataUri(jpeg)] });
    expect(res.status).toBe(200);
    const { curl } = (await t.request('GET', `/v1/decisions/${res.body.decisionId}/curl`)).body;
    expect(curl).toContain('$VERDICT_IMAGE_FILE_1');
    expect(curl).toContain('$VERDICT_IMAGE_FILE_2');
    expect(curl).not.toContain('$VERDICT_IMAGE_FILE_3');
    expect(curl).toContain(`${server.url}/a.jpg`);
    expect(curl).not.toContain('sha256:');
  });

  it('fails the request when an image URL is not an image, naming the item', async () => {
    const res = await mm({ text: 'hi', images: [dataUri(jpeg), `${server.url}/a.svg`] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { field: 'images[1]' } });
  });

  it('is idempotent: a repeated key returns the stored decision without fetching again', async () => {
    const body = { images: [`${server.url}/idem.jpg`], requestId: 'mm-idem-1' };
    const first = await mm(body);
    expect(first.status).toBe(200);
    const hits = server.hits.get('/idem.jpg');
    const again = await mm(body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.decisionId).toBe(first.body.decisionId);
    expect(server.hits.get('/idem.jpg')).toBe(hits);
    const reused = await mm({ ...body, images: [dataUri(jpeg)] });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('meters each text and image as one evaluation, and enforces the monthly quota before any work', async () => {
    const account = await t.request('POST', '/v1/accounts', { body: { name: 'metered', monthlyQuota: 4 } });
    expect(account.status).toBe(201);
    const { key } = await t.newKey(['check'], account.body.accountId);
    const body = { policyId: 'default', text: 'hello', images: [dataUri(jpeg), dataUri(png, 'image/png')] };
    const first = await t.request('POST', '/v1/check/multimodal', { key, body });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const usage = await t.request('GET', '/v1/usage', { key });
    expect(usage.body).toMatchObject({ evaluations: 3, breakdown: { text: 1, image: 2 } });
    const before = server.total();
    const over = await t.request('POST', '/v1/check/multimodal', {
      key,
      body: { ...body, images: [`${server.url}/quota.jpg`] },
    });
    expect(over.status).toBe(402);
    expect(over.body.error.code).toBe('QUOTA_EXCEEDED');
    expect(server.total()).toBe(before);
    const alone = await t.request('POST', '/v1/check/multimodal', {
      key,
      body: { policyId: 'default', text: 'x' },
    });
    expect(alone.status).toBe(200);
  });

  it('documents the endpoint in the OpenAPI document', async () => {
    const res = await t.request('GET', '/openapi.json', { key: null });
    const op = res.body.paths['/v1/check/multimodal'].post;
    expect(op.description).toContain('TOO_MANY_ITEMS');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '422']));
  });
});

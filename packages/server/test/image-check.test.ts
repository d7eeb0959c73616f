import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { differenceHash, hashDistance, MAX_IMAGE_BYTES } from '../src/media/image.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { dataUri, PDF, photo, pngBombHeader, SVG, serve, type TestServer } from './helpers/images.ts';
import { curlArguments, runCurl } from './helpers/process.ts';

/**
 * Image checks through POST /v1/check with the real nsfwjs model in its worker pool. The address check stays ON:
 * only 127.0.0.1 counts as "the public internet" here (the `isAllowedAddress` seam), so the image server is
 * reachable while 127.0.0.2 (the "internal" server), every other private range and the metadata address are not.
 */
describe('POST /v1/check with contentType image', () => {
  let t: TestApp;
  let images: TestServer;
  let internal: TestServer;
  let jpeg: Buffer;
  let png: Buffer;
  const publicUrl = (path: string) => `http://img.public.test:${images.port}${path}`;

  beforeAll(async () => {
    jpeg = await photo('jpeg');
    png = await photo('png');
    internal = await serve((_req, res) => res.end(jpeg), { host: '127.0.0.2' });
    images = await serve((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      switch (url.pathname) {
        case '/photo.jpg':
          res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
          return;
        case '/lying.png':
          // Declares an image but is SVG: content is sniffed, not trusted from headers.
          res.writeHead(200, { 'content-type': 'image/png' }).end(SVG);
          return;
        case '/truncated.jpg':
          res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg.subarray(0, jpeg.length >> 1));
          return;
        case '/missing.jpg':
          res.writeHead(404).end();
          return;
        case '/hop': {
          const n = Number(url.searchParams.get('n'));
          res.writeHead(302, { location: n > 1 ? `/hop?n=${n - 1}` : '/photo.jpg' }).end();
          return;
        }
        case '/to-internal':
          res.writeHead(302, { location: `http://127.0.0.2:${internal.port}/secret.jpg` }).end();
          return;
        case '/to-metadata':
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
          return;
        case '/huge':
          res.writeHead(200, { 'content-type': 'image/jpeg' });
          res.end(Buffer.concat([jpeg, Buffer.alloc(MAX_IMAGE_BYTES)]));
          return;
        case '/hang':
          return;
        case '/forever': {
          res.writeHead(200, { 'content-type': 'image/jpeg' });
          res.write(jpeg.subarray(0, 100));
          const timer = setInterval(() => res.write(Buffer.alloc(1024)), 20);
          res.on('close', () => clearInterval(timer));
          return;
        }
        default:
          res.writeHead(404).end();
      }
    });
    t = await createTestApp({
      config: { allowHttpMedia: true },
      overrides: {
        imageFetch: {
          isAllowedAddress: (ip) => ip === '127.0.0.1',
          lookup: async (host) => [
            { address: host.endsWith('.public.test') ? '127.0.0.1' : '127.0.0.2', family: 4 },
          ],
          totalTimeoutMs: 1500,
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await images?.close();
    await internal?.close();
  });

  const check = (content: unknown, extra: Record<string, unknown> = {}) =>
    t.request('POST', '/v1/check', {
      body: { content, contentType: 'image', policyId: 'default', ...extra },
    });

  it('judges a base64 JPEG: sexual and suggestive scored, other categories not evaluated', async () => {
    const res = await check(jpeg.toString('base64'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ provider: 'local', contentType: 'image', cost: 0 });
    expect(res.body.modelVersion).toMatch(/^nsfwjs-\d+\.\d+\.\d+\/mobilenet_v2$/);
    for (const c of res.body.categories) {
      if (c.category === 'sexual' || c.category === 'suggestive') {
        expect(c.evaluated).toBe(true);
        expect(c.score).toBeGreaterThanOrEqual(0);
        expect(c.score).toBeLessThanOrEqual(1);
      } else {
        expect(c).toMatchObject({ score: 0, triggered: false, evaluated: false });
      }
    }
    // A drawing of a circle and a square is not sexual.
    expect(res.body.categories.find((c: any) => c.category === 'sexual').score).toBeLessThan(0.5);
    const sha = (await import('node:crypto')).createHash('sha256').update(jpeg).digest('hex');
    expect(res.body.media).toEqual([
      {
        ref: `sha256:${sha}`,
        sha256: sha,
        bytes: jpeg.length,
        format: 'jpeg',
        width: 320,
        height: 240,
        phash: expect.stringMatching(/^[0-9a-f]{16}$/),
      },
    ]);

    // The stored decision keeps the reference and fingerprint, never the bytes.
    const stored = await t.request('GET', `/v1/decisions/${res.body.decisionId}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({
      content: `sha256:${sha}`,
      contentType: 'image',
      media: res.body.media,
    });
    expect(JSON.stringify(stored.body)).not.toContain(jpeg.toString('base64').slice(0, 40));
  });

  it.each(['png', 'webp', 'gif'] as const)('accepts a %s data URI', async (format) => {
    const bytes = await photo(format);
    const res = await check(dataUri(bytes, `image/${format}`));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.media[0]).toMatchObject({ format, width: 320, height: 240 });
  });

  it('accepts line-wrapped (MIME) and URL-safe base64, and refuses one bad character among valid ones', async () => {
    const b64 = jpeg.toString('base64');
    const wrapped = b64.match(/.{1,76}/g)!.join('\r\n');
    expect((await check(wrapped)).status).toBe(200);
    expect((await check(jpeg.toString('base64url'))).status).toBe(200);
    const middle = b64.length >> 1;
    const corrupted = `${b64.slice(0, middle)}*${b64.slice(middle + 1)}`;
    const res = await check(corrupted);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_BASE64');
  });

  it('sniffs the bytes instead of trusting the declared type', async () => {
    const res = await check(dataUri(png, 'image/jpeg'));
    expect(res.status).toBe(200);
    expect(res.body.media[0].format).toBe('png');
  });

  it('applies EXIF orientation: an image tagged "rotate 90°" hashes like the rotated pixels', async () => {
    const upright = await sharp(jpeg).rotate(90).jpeg().toBuffer();
    const tagged = await sharp(jpeg).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const res = await check(tagged.toString('base64'));
    expect(res.status).toBe(200);
    expect(res.body.media[0]).toMatchObject({ width: 240, height: 320 });
    expect(hashDistance(res.body.media[0].phash, await differenceHash(upright))).toBeLessThanOrEqual(4);
    expect(hashDistance(res.body.media[0].phash, await differenceHash(jpeg))).toBeGreaterThan(8);
  });

  it('fetches an image URL (following up to 3 redirects) and stores the URL as the reference', async () => {
    const res = await check(publicUrl('/hop?n=3'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.media[0]).toMatchObject({
      ref: publicUrl('/hop?n=3'),
      bytes: jpeg.length,
      format: 'jpeg',
    });
    const stored = await t.request('GET', `/v1/decisions/${res.body.decisionId}`);
    expect(stored.body.content).toBe(publicUrl('/hop?n=3'));
  });

  it('replays an image decision under another policy from its stored scores', async () => {
    const first = await check(jpeg.toString('base64'));
    const replay = await t.request('POST', `/v1/decisions/${first.body.decisionId}/replay`, {
      body: { policyId: 'strict' },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body).toMatchObject({
      replayOf: first.body.decisionId,
      policyId: 'strict',
      media: first.body.media,
    });
    const sexual = (r: any) => r.categories.find((c: any) => c.category === 'sexual').score;
    expect(sexual(replay.body)).toBe(sexual(first.body));
  });

  it("renders a cURL command that reproduces an inline image's check from the image file", async () => {
    const first = await check(jpeg.toString('base64'));
    const { curl } = (await t.request('GET', `/v1/decisions/${first.body.decisionId}/curl`)).body;
    expect(curl).toContain('$VERDICT_IMAGE_FILE');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-curl-'));
    try {
      const file = path.join(dir, "it's a photo.jpg");
      fs.writeFileSync(file, jpeg);
      // a real shell runs the command, with curl replaced by a function that prints its arguments
      const { body } = await curlArguments(curl, { VERDICT_API_KEY: 'vk_example', VERDICT_IMAGE_FILE: file });
      expect(body).toEqual({ content: jpeg.toString('base64'), policyId: 'default', contentType: 'image' });
      const again = await t.request('POST', '/v1/check', { body });
      expect(again.status).toBe(200);
      expect(again.body.categories).toEqual(first.body.categories);
      // without the file, the command stops with a message instead of sending an empty image
      for (const env of [{}, { VERDICT_IMAGE_FILE: path.join(dir, 'missing.jpg') }] as Record<
        string,
        string
      >[]) {
        const stopped = await runCurl(curl, { VERDICT_API_KEY: 'vk_example', ...env });
        expect(stopped.code).not.toBe(0);
        expect(stopped.args.join('')).toBe('');
        expect(stopped.stderr).toMatch(/Set VERDICT_IMAGE_FILE to the image file this decision checked/);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['bad base64 characters', () => 'not*base64!', 'INVALID_BASE64'],
    ['base64 of impossible length', () => 'abcde', 'INVALID_BASE64'],
    ['base64 in a data URI', () => 'data:image/png;base64,%%%%', 'INVALID_BASE64'],
    ['an empty string', () => '', 'INVALID_CONTENT'],
    ['a zero-byte data URI', () => 'data:image/png;base64,', 'INVALID_CONTENT'],
    [
      'plain text as base64',
      () => Buffer.from('hello world, not an image').toString('base64'),
      'INVALID_CONTENT',
    ],
    ['an SVG', () => SVG.toString('base64'), 'INVALID_CONTENT'],
    ['an SVG data URI', () => dataUri(SVG, 'image/svg+xml'), 'INVALID_CONTENT'],
    ['a PDF', () => PDF.toString('base64'), 'INVALID_CONTENT'],
    ['a text data URI', () => dataUri(Buffer.from('hi'), 'text/plain'), 'INVALID_CONTENT'],
    ['a non-base64 data URI', () => 'data:image/png,rawbytes', 'INVALID_CONTENT'],
    ['a number', () => 42, 'INVALID_CONTENT'],
    ['a truncated JPEG', () => jpeg.subarray(0, jpeg.length >> 1).toString('base64'), 'INVALID_CONTENT'],
    ['a truncated PNG', () => png.subarray(0, png.length - 40).toString('base64'), 'INVALID_CONTENT'],
    ['a JPEG header only', () => jpeg.subarray(0, 4).toString('base64'), 'INVALID_CONTENT'],
    ['an ftp URL', () => 'ftp://example.com/a.jpg', 'INVALID_IMAGE_URL'],
    ['a file URL', () => 'file:///etc/passwd', 'INVALID_IMAGE_URL'],
  ])('rejects %s', async (_name, content, code) => {
    const res = await check(content());
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.details.field).toBe('content');
  });

  it('rejects a 50000×50000 PNG header quickly, without decompressing it', async () => {
    const started = Date.now();
    const res = await check(pngBombHeader().toString('base64'));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'INVALID_CONTENT' });
    expect(res.body.error.details).toMatchObject({ reason: 'too_many_pixels', width: 50000, height: 50000 });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects 20 MB + 1 byte with CONTENT_TOO_LARGE', async () => {
    const big = Buffer.alloc(MAX_IMAGE_BYTES + 1);
    jpeg.copy(big);
    const res = await check(big.toString('base64'));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'CONTENT_TOO_LARGE' });
    expect(res.body.error.details).toMatchObject({ maxBytes: MAX_IMAGE_BYTES, bytes: MAX_IMAGE_BYTES + 1 });
  });

  it.each([
    ['a 404', '/missing.jpg', 'INVALID_IMAGE_URL', 'http_status'],
    ['an SVG served as image/png', '/lying.png', 'INVALID_IMAGE_URL', 'format'],
    ['a truncated image', '/truncated.jpg', 'INVALID_IMAGE_URL', 'decode'],
    ['more than 3 redirects', '/hop?n=4', 'INVALID_IMAGE_URL', 'too_many_redirects'],
    ['over 20 MB', '/huge', 'CONTENT_TOO_LARGE', undefined],
  ])('rejects a URL serving %s', async (_name, path, code, reason) => {
    const res = await check(publicUrl(path));
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error.code).toBe(code);
    if (reason) expect(res.body.error.details.reason).toBe(reason);
  });

  it('refuses private and loopback URLs (every spelling) without reaching them', async () => {
    const p = internal.port;
    const urls = [
      `http://127.0.0.2:${p}/secret.jpg`,
      `http://2130706434:${p}/secret.jpg`,
      `http://0x7f.0.0.2:${p}/secret.jpg`,
      `http://0177.0.0.2:${p}/secret.jpg`,
      `http://[::ffff:127.0.0.2]:${p}/secret.jpg`,
      `http://internal.test:${p}/secret.jpg`,
      'http://169.254.169.254/latest/meta-data/',
      'https://[::1]/x.jpg',
      'https://10.0.0.5/x.jpg',
      publicUrl('/to-internal'),
      publicUrl('/to-metadata'),
    ];
    for (const url of urls) {
      const res = await check(url);
      expect(res.status, url).toBe(422);
      expect(res.body.error.code, url).toBe('INVALID_IMAGE_URL');
      expect(res.body.error.details.reason, url).toBe('private_address');
      // The message names the field and reason, never the URL.
      expect(res.body.error.message).not.toContain('127.0.0.2');
    }
    expect(internal.total()).toBe(0);
  });

  it('gives up on a server that never answers, or streams forever, within the time limit', async () => {
    for (const path of ['/hang', '/forever']) {
      const started = Date.now();
      const res = await check(publicUrl(path));
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { reason: 'timeout' } });
      expect(Date.now() - started).toBeLessThan(1500 + 3000);
    }
  });

  it('reports the image model in /readyz', async () => {
    const res = await t.request('GET', '/readyz', { key: null });
    expect(res.body.checks.images).toBe(true);
  });
});

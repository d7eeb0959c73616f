import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWarnings } from '../src/domain/content-warnings.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { dataUri, photo } from './helpers/images.ts';

describe('helpful misuse warnings: media sent as text', () => {
  let t: TestApp;
  let png: Buffer;
  let jpeg: Buffer;

  beforeAll(async () => {
    t = await createTestApp();
    png = await photo('png', 64, 48);
    jpeg = await photo('jpeg', 64, 48);
  });
  afterAll(async () => {
    await t?.close();
  });

  const check = (body: Record<string, unknown>) =>
    t.request('POST', '/v1/check', { body: { policyId: 'default', ...body } });

  it('a base64 image sent with the default contentType is scored as text, with a warning naming the image', async () => {
    const res = await check({ content: png.toString('base64') });
    expect(res.status).toBe(200);
    expect(res.body.decisionId).toMatch(/^dec_/);
    expect(res.body.contentType).toBe('text');
    expect(res.body.warnings).toEqual([
      {
        code: 'CONTENT_LOOKS_LIKE_BASE64_MEDIA',
        field: 'content',
        message: expect.stringContaining('PNG image'),
      },
    ]);
    const wrapped = jpeg.toString('base64').replace(/(.{76})/g, '$1\n');
    const again = await check({ content: wrapped, contentType: 'text' });
    expect(again.body.warnings[0].message).toContain('JPEG image');
  });

  it('a data URI sent as text gets a warning with its media type', async () => {
    const res = await check({ content: dataUri(jpeg) });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([
      {
        code: 'CONTENT_LOOKS_LIKE_DATA_URI',
        field: 'content',
        message: expect.stringContaining('image/jpeg'),
      },
    ]);
  });

  it('the same image sent as contentType image is judged as an image, without a warning', async () => {
    const res = await check({ content: png.toString('base64'), contentType: 'image' });
    expect(res.status).toBe(200);
    expect(res.body.contentType).toBe('image');
    expect(res.body.warnings).toBeUndefined();
  });

  it('ordinary text, and base64 that is not media, get no warnings field', async () => {
    for (const content of [
      'you are an idiot',
      'data: the numbers are in, base64 is an encoding',
      Buffer.from('just some words encoded for transport, nothing more, really nothing'.repeat(3)).toString(
        'base64',
      ),
      'a'.repeat(200),
    ]) {
      const res = await check({ content });
      expect(res.status, content).toBe(200);
      expect(res.body.warnings, content).toBeUndefined();
    }
  });

  it('a synchronous batch reports the warnings of each item that has any', async () => {
    const res = await t.request('POST', '/v1/batch/check', {
      body: {
        policyId: 'default',
        items: [
          { id: 'plain', content: 'hello there' },
          { id: 'picture', content: dataUri(png, 'image/png') },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0].warnings).toBeUndefined();
    expect(res.body.items[1]).toMatchObject({
      id: 'picture',
      decisionId: expect.stringMatching(/^dec_/),
      warnings: [{ code: 'CONTENT_LOOKS_LIKE_DATA_URI', field: 'items[1].content' }],
    });
  });

  it('an idempotent repeat answers the stored response, warnings included', async () => {
    const body = { content: png.toString('base64'), requestId: 'warn-1' };
    const first = await check(body);
    const repeat = await check(body);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.body).toEqual(first.body);
  });

  it('recognises the media signatures it names, and stays quick on 32 KB of base64 characters', () => {
    const of = (hex: string) =>
      textWarnings(Buffer.concat([Buffer.from(hex, 'hex'), Buffer.alloc(60)]).toString('base64'));
    expect(of('47494638396100')[0]?.message).toContain('GIF image');
    expect(of(`52494646000000005745425056503820`)[0]?.message).toContain('WebP image');
    expect(of('0000001866747970')[0]?.message).toContain('MP4/QuickTime video');
    expect(of('1a45dfa3')[0]?.message).toContain('WebM/Matroska video');
    const started = performance.now();
    expect(textWarnings(`${'A'.repeat(32_000)} x`)).toEqual([]);
    expect(textWarnings(`${'A'.repeat(16_000)}\n`.repeat(2))).toEqual([]);
    expect(performance.now() - started).toBeLessThan(50);
  });

  it('GET / sends a browser to the web console (which links the API reference at /docs), without a key', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/dashboard');
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
  });
});

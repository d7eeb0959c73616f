import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

/** The scheme error names the schemes the service accepts: with VERDICT_ALLOW_HTTP_MEDIA, http too. */
describe.each([
  [false, 'must be an https URL'],
  [true, 'must be an http or https URL'],
])('media URL with an unsupported scheme (allowHttpMedia %s)', (allowHttpMedia, expected) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ config: { allowHttpMedia } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('an image URL', async () => {
    const res = await t.request('POST', '/v1/check', {
      body: { content: 'ftp://example.com/a.jpg', contentType: 'image', policyId: 'default' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_IMAGE_URL');
    expect(res.body.error.message).toContain(expected);
  });

  it('a video URL', async () => {
    const res = await t.request('POST', '/v1/video/check', {
      body: { videoUrl: 'ftp://example.com/a.mp4', policyId: 'default' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INVALID_VIDEO_URL');
    expect(res.body.error.message).toContain(expected);
  });
});

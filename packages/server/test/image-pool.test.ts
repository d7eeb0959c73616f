import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_IMAGE_PIXELS } from '../src/media/image.ts';
import { CLASSES, MODEL_VERSION } from '../src/providers/local-image/model.ts';
import { ImageDecodeError, ImageModelPool } from '../src/providers/local-image/pool.ts';
import { LocalImageProvider } from '../src/providers/local-image/provider.ts';
import { ProviderError } from '../src/providers/provider.ts';
import { photo, pngBombHeader } from './helpers/images.ts';

describe('ImageModelPool (real nsfwjs model in worker threads)', () => {
  const pool = new ImageModelPool({ size: 2, maxPixels: MAX_IMAGE_PIXELS });
  let jpeg: Buffer;
  beforeAll(async () => {
    jpeg = await photo('jpeg', 640, 480);
  });
  afterAll(() => pool.close());

  it('starts lazily; idle counts as ready; ready with the first worker loaded, then loads the others', async () => {
    expect(pool.state).toBe('idle');
    expect(pool.isReady()).toBe(true);
    expect(pool.readyWorkers).toBe(0);
    await pool.start();
    // the first worker loads alone: ready (an image is classified without waiting for a load) with one worker
    expect(pool.state).toBe('ready');
    expect(pool.readyWorkers).toBe(1);
    expect(pool.size).toBe(2);
    const scores = await pool.classify(jpeg); // served by the loaded worker while the second loads
    expect(Object.keys(scores.raw)).toEqual([...CLASSES]);
    await expect.poll(() => pool.readyWorkers, { timeout: 60_000, interval: 50 }).toBe(2);
  }, 90_000);

  it('classifies encoded images into sexual (Porn+Hentai) and suggestive (Sexy) probabilities', async () => {
    const scores = await pool.classify(jpeg);
    expect(Object.keys(scores.raw)).toEqual([...CLASSES]);
    const sum = Object.values(scores.raw).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 3);
    expect(scores.sexual).toBeCloseTo(scores.raw.Porn! + scores.raw.Hentai!, 5);
    expect(scores.suggestive).toBe(scores.raw.Sexy);
    // Deterministic: the same bytes give the same scores on any worker.
    const again = await Promise.all(Array.from({ length: 6 }, () => pool.classify(jpeg)));
    for (const s of again) expect(s).toEqual(scores);
  });

  it('leaves the caller’s buffer intact (it sends a copy)', async () => {
    const copy = Buffer.from(jpeg);
    await pool.classify(copy);
    expect(copy.equals(jpeg)).toBe(true);
  });

  it('rejects undecodable bytes and decompression bombs with ImageDecodeError, and keeps working', async () => {
    await expect(pool.classify(Buffer.from('not an image'))).rejects.toBeInstanceOf(ImageDecodeError);
    await expect(pool.classify(pngBombHeader())).rejects.toBeInstanceOf(ImageDecodeError);
    await expect(pool.classify(jpeg)).resolves.toHaveProperty('sexual');
  });

  it('is the `local` provider for images, judging sexual and suggestive only', async () => {
    const provider = new LocalImageProvider(pool);
    const result = await provider.evaluate({ contentType: 'image', image: jpeg });
    expect(provider.name).toBe('local');
    expect(result).toMatchObject({
      evaluated: ['sexual', 'suggestive'],
      cost: 0,
      modelVersion: MODEL_VERSION,
    });
    await expect(
      provider.evaluate({ contentType: 'text', text: 'x', language: 'en' }),
    ).rejects.toBeInstanceOf(ProviderError);
  });

  it('cancels queued work on abort, and refuses work once closed', async () => {
    const controller = new AbortController();
    const many = Array.from({ length: 12 }, () => pool.classify(jpeg, controller.signal));
    controller.abort(new Error('client went away'));
    const settled = await Promise.allSettled(many);
    expect(settled.some((s) => s.status === 'rejected')).toBe(true);
    const closing = new ImageModelPool({ size: 1, maxPixels: MAX_IMAGE_PIXELS });
    await closing.close();
    expect(closing.isReady()).toBe(false);
    await expect(closing.classify(jpeg)).rejects.toBeInstanceOf(ProviderError);
  });
});

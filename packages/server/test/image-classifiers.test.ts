import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { MAX_IMAGE_PIXELS } from '../src/media/image.ts';
import { ImageModelPool } from '../src/providers/local-image/pool.ts';
import { ProviderError } from '../src/providers/provider.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { tempDir } from './helpers/databases.ts';
import { photo } from './helpers/images.ts';
import { colourModel, smallConvModel, writeClassifier } from './helpers/onnx.ts';
import { freePort, verdict } from './helpers/process.ts';

/**
 * Operator-supplied ONNX image classifiers (VERDICT_IMAGE_CLASSIFIERS), run by onnxruntime-node in the image
 * worker pool. The models are written by the tests (helpers/onnx.ts): a one-layer "colour" classifier whose
 * `red` probability follows the image's mean red minus blue, mapped to `violence`.
 */
const solid = (r: number, g: number, b: number, format: 'png' | 'jpeg' = 'png') =>
  sharp({ create: { width: 200, height: 150, channels: 3, background: { r, g, b } } })
    .toFormat(format)
    .toBuffer();

const colourManifest = {
  input: { size: 32 },
  output: 'softmax',
  labels: ['red', 'blue'],
  categories: { violence: ['red'] },
};

const category = (body: { categories: { category: string }[] }, name: string) =>
  body.categories.find((c) => c.category === name) as
    | { category: string; score: number; evaluated: boolean; triggered: boolean }
    | undefined;

describe('operator ONNX image classifiers through POST /v1/check', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('verdict-classifiers-');
    writeClassifier(dir, 'colour', colourModel(32), colourManifest);
    // a second classifier, NHWC and BGR, whose `blue` label is also `violence` (the larger score wins) and whose
    // `red` label judges `hate`
    writeClassifier(dir, 'colour-bgr', colourModel(48, 'nhwc'), {
      input: { size: 48, layout: 'nhwc', channels: 'bgr' },
      output: 'softmax',
      labels: ['red', 'blue'],
      categories: { hate: 'blue' },
    });
    const { config } = loadConfig({ VERDICT_IMAGE_CLASSIFIERS: dir });
    t = await createTestApp({
      config: { imageClassifiers: config.imageClassifiers!, ocr: { enabled: false, timeoutMs: 3000 } },
    });
  });
  afterAll(() => t?.close());

  const check = (image: Buffer) =>
    t.request('POST', '/v1/check', {
      body: { content: image.toString('base64'), contentType: 'image', policyId: 'default' },
    });

  it("judges the classifiers' categories (evaluated: true) and leaves the rest evaluated: false", async () => {
    const red = await check(await solid(230, 20, 20));
    const blue = await check(await solid(20, 20, 230, 'jpeg'));
    expect(red.status, JSON.stringify(red.body)).toBe(200);
    expect(blue.status, JSON.stringify(blue.body)).toBe(200);
    const redViolence = category(red.body, 'violence')!;
    const blueViolence = category(blue.body, 'violence')!;
    expect(redViolence.evaluated).toBe(true);
    expect(blueViolence.evaluated).toBe(true);
    // softmax(8·(R−B)) with R−B ≈ 0.82: about 0.9999 for red, about 0.0001 for blue
    expect(redViolence.score).toBeGreaterThan(0.99);
    expect(blueViolence.score).toBeLessThan(0.01);
    expect(redViolence.triggered).toBe(true);
    expect(blueViolence.triggered).toBe(false);
    // The BGR classifier reads channels in the other order: its `blue` label (hate) is high for the red image.
    expect(category(red.body, 'hate')).toMatchObject({ evaluated: true });
    expect(category(red.body, 'hate')!.score).toBeGreaterThan(0.99);
    expect(category(blue.body, 'hate')!.score).toBeLessThan(0.01);
    // The bundled model still judges its own; nobody judges the rest.
    for (const body of [red.body, blue.body]) {
      expect(category(body, 'sexual')!.evaluated).toBe(true);
      for (const name of ['harassment', 'self_harm', 'profanity', 'spam', 'toxicity'])
        expect(category(body, name)).toMatchObject({ evaluated: false, score: 0 });
    }
    // The result names the classifiers that judged it (in manifest file name order).
    expect(red.body.modelVersion).toMatch(
      /^nsfwjs-[\d.]+\/mobilenet_v2\+colour-bgr@sha256:[0-9a-f]{12}\+colour@sha256:[0-9a-f]{12}$/,
    );
  });

  it('scores follow the pixels: more red, more violence', async () => {
    const scores: number[] = [];
    for (const red of [40, 110, 150, 200]) {
      const res = await check(await solid(red, 60, 120));
      scores.push(category(res.body, 'violence')!.score);
    }
    expect([...scores].sort((a, b) => a - b)).toEqual(scores);
    expect(scores[0]).toBeLessThan(scores[3]!);
    // an ordinary photo (mostly blue background) is scored too
    const res = await check(await photo('jpeg'));
    expect(category(res.body, 'violence')).toMatchObject({ evaluated: true });
  });

  it('/readyz names the classifiers and /v1/providers lists their categories under local', async () => {
    const ready = await t.request('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.imageClassifiers)).toEqual(['colour-bgr', 'colour']);
    expect(ready.body.imageClassifiers.colour).toBe('ready');
    const providers = await t.request('GET', '/v1/providers');
    expect(providers.status).toBe(200);
    const local = providers.body.providers.find((p: { name: string }) => p.name === 'local');
    expect(local.categories).toEqual(expect.arrayContaining(['sexual', 'suggestive', 'violence', 'hate']));
  });

  it('batch items and multi-modal images get the same scores', async () => {
    const red = (await solid(230, 20, 20)).toString('base64');
    const res = await t.request('POST', '/v1/check/multimodal', {
      body: { policyId: 'default', images: [red] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.stringify(res.body)).toContain('violence');
  });
});

describe('VERDICT_IMAGE_CLASSIFIERS validation at start', () => {
  const configError = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('refuses a model whose SHA-256 differs from the manifest, through the CLI too', async () => {
    const dir = tempDir('verdict-classifiers-');
    const file = writeClassifier(dir, 'colour', colourModel(32), colourManifest);
    // the model changed after the manifest was written
    fs.writeFileSync(path.join(dir, 'colour.onnx'), colourModel(32, 'nchw', 9));
    expect(configError({ VERDICT_IMAGE_CLASSIFIERS: file })).toMatch(
      /^Invalid VERDICT_IMAGE_CLASSIFIERS: .*colour\.json: sha256: .*colour\.onnx has SHA-256 [0-9a-f]{64}, not [0-9a-f]{64}/,
    );
    const dataDir = tempDir();
    const run = await verdict(['serve'], {
      VERDICT_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      VERDICT_IMAGE_CLASSIFIERS: dir,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/verdict: Invalid VERDICT_IMAGE_CLASSIFIERS: .*SHA-256/);
  });

  it.each([
    [{ categories: { gore: ['red'] } }, /categories\.gore: not a Verdict category/],
    [{ categories: { violence: ['purple'] } }, /categories\.violence: "purple" is not one of labels/],
    [{ output: 'relu' }, /output: expected softmax, sigmoid, probabilities/],
    [{ input: { size: 0 } }, /input\.size: expected an integer from 1 to 1024/],
    [{ input: { size: 32, std: [1, 0, 1] } }, /input\.std: expected three positive numbers/],
    [{ input: { size: 32, layout: 'chw' } }, /input\.layout: expected nchw, nhwc/],
    [{ labels: ['red', 'red'] }, /labels: a label is listed twice/],
    [{ threshold: 0.5 }, /threshold: unknown field/],
    [{ name: 'Bad Name' }, /name: expected 1–63 characters/],
    [{ sha256: 'abc' }, /sha256: expected 64 hexadecimal digits/],
    [{ model: 'missing.onnx' }, /model: cannot read .*missing\.onnx \(ENOENT\)/],
  ])('refuses a manifest with %j', (override, message) => {
    const dir = tempDir('verdict-classifiers-');
    const file = writeClassifier(dir, 'colour', colourModel(32), { ...colourManifest, ...override });
    expect(configError({ VERDICT_IMAGE_CLASSIFIERS: file })).toMatch(message);
  });

  it('refuses an empty directory, a missing path and two manifests of one name', () => {
    const empty = tempDir('verdict-classifiers-');
    expect(configError({ VERDICT_IMAGE_CLASSIFIERS: empty })).toMatch(/holds no manifest/);
    expect(configError({ VERDICT_IMAGE_CLASSIFIERS: path.join(empty, 'nope') })).toMatch(
      /cannot read .*ENOENT/,
    );
    const dir = tempDir('verdict-classifiers-');
    writeClassifier(dir, 'a', colourModel(32), { ...colourManifest, name: 'same' });
    writeClassifier(dir, 'b', colourModel(32), { ...colourManifest, name: 'same' });
    expect(configError({ VERDICT_IMAGE_CLASSIFIERS: dir })).toMatch(/two manifests are named "same"/);
  });

  it('refuses to start when the model does not match its manifest (input size, labels, not ONNX)', async () => {
    const cases: [Buffer, Record<string, unknown>, RegExp][] = [
      [colourModel(32), { ...colourManifest, input: { size: 64 } }, /does not take a 1×3×64×64 input/],
      [
        colourModel(32),
        { ...colourManifest, labels: ['red', 'blue', 'green'] },
        /gives 2 outputs, the manifest lists 3 labels/,
      ],
      [Buffer.from('not a model'), colourManifest, /is not a loadable ONNX model/],
    ];
    for (const [model, manifest, message] of cases) {
      const dir = tempDir('verdict-classifiers-');
      writeClassifier(dir, 'colour', model, manifest);
      const { config } = loadConfig({ VERDICT_IMAGE_CLASSIFIERS: dir });
      await expect(createTestApp({ config: { imageClassifiers: config.imageClassifiers! } })).rejects.toThrow(
        message,
      );
    }
    // verdict serve checks them before it starts the image model (first, with VERDICT_IMAGE_PRELOAD) and exits 2
    const dir = tempDir('verdict-classifiers-');
    writeClassifier(dir, 'colour', colourModel(32), { ...colourManifest, input: { size: 64 } });
    for (const preload of ['true', 'false']) {
      const run = await verdict(['serve'], {
        VERDICT_DATA_DIR: tempDir(),
        PORT: String(await freePort()),
        VERDICT_IMAGE_CLASSIFIERS: dir,
        VERDICT_IMAGE_PRELOAD: preload,
      });
      expect([preload, run.code]).toEqual([preload, 2]);
      expect(run.stderr).toMatch(
        /^verdict: Invalid VERDICT_IMAGE_CLASSIFIERS: .*does not take a 1×3×64×64 input/,
      );
    }
  }, 60_000);
});

describe('the image pool and its classifiers', () => {
  it('a worker refuses a model file that changed after the start-up check', async () => {
    const dir = tempDir('verdict-classifiers-');
    const file = writeClassifier(dir, 'colour', colourModel(32), colourManifest);
    const { config } = loadConfig({ VERDICT_IMAGE_CLASSIFIERS: file });
    fs.writeFileSync(path.join(dir, 'colour.onnx'), colourModel(32, 'nchw', 9));
    const pool = new ImageModelPool({
      size: 1,
      maxPixels: MAX_IMAGE_PIXELS,
      classifiers: config.imageClassifiers!.classifiers,
    });
    try {
      const error = await pool.start().catch((e: unknown) => e);
      expect((error as Error).cause).toBeInstanceOf(Error);
      expect(((error as Error).cause as Error).message).toMatch(/image classifier "colour": .* has SHA-256 /);
      expect(pool.state).toBe('failed');
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('fails an image that overruns the bound, replaces the worker and keeps serving', async () => {
    const dir = tempDir('verdict-classifiers-');
    // a convolutional model at 1024 px takes far longer than 1 ms
    writeClassifier(dir, 'slow', smallConvModel(1024, 2), {
      input: { size: 1024 },
      output: 'softmax',
      labels: ['a', 'b'],
      categories: { violence: 'a' },
    });
    const { config } = loadConfig({ VERDICT_IMAGE_CLASSIFIERS: dir });
    const pool = new ImageModelPool({
      size: 1,
      maxPixels: MAX_IMAGE_PIXELS,
      classifiers: config.imageClassifiers!.classifiers,
      timeoutMs: 1,
    });
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      await pool.start();
      const image = await solid(200, 10, 10);
      for (let i = 0; i < 2; i++) {
        const error = await pool.classify(image).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ProviderError);
        expect((error as Error).message).toBe('the image models took longer than 1 ms');
      }
      // timeouts are not crashes: the pool is not marked failed
      expect(pool.state).not.toBe('failed');
      await pool.close();
      // the overrunning workers were asked to exit once their run was over, never terminated inside onnxruntime
      // (a thread terminated there can abort the whole process from native code)
      expect(terminate).not.toHaveBeenCalled();
    } finally {
      terminate.mockRestore();
      await pool.close();
    }
  }, 120_000);

  it('close() lets each worker release its ONNX sessions and exit instead of terminating it', async () => {
    const dir = tempDir('verdict-classifiers-');
    const file = writeClassifier(dir, 'colour', colourModel(32), colourManifest);
    const { config } = loadConfig({ VERDICT_IMAGE_CLASSIFIERS: file });
    const pool = new ImageModelPool({
      size: 2,
      maxPixels: MAX_IMAGE_PIXELS,
      classifiers: config.imageClassifiers!.classifiers,
    });
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    try {
      await pool.start();
      const image = await solid(200, 10, 10);
      // images in flight while closing: they are refused, and the workers finish them before they exit
      const pending = Array.from({ length: 4 }, () => pool.classify(image).catch((e: unknown) => e));
      await pool.close();
      for (const outcome of await Promise.all(pending))
        if (outcome instanceof Error) expect(outcome.message).toBe('the image model is shutting down');
      expect(terminate).not.toHaveBeenCalled();
      expect(pool.state).toBe('closed');
    } finally {
      terminate.mockRestore();
      await pool.close();
    }
  }, 120_000);
});

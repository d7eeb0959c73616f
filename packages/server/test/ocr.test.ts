import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoTools } from '../src/media/video/ffmpeg.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { meme, serve, type TestServer } from './helpers/images.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Two tests need Debian packages that `.ci/run` installs (no npm package carries them): the Arabic font to render
 * with, and the Russian OCR model. Without them those tests skip and say so, like the browser tests.
 */
const hasArabicFont = fs.existsSync('/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf');
const hasRussianModel = [
  '/usr/share/tesseract-ocr/5/tessdata',
  process.env.VERDICT_OCR_TESSDATA_DIR ?? '',
].some((dir) => dir !== '' && fs.existsSync(path.join(dir, 'rus.traineddata')));
if (!hasArabicFont || !hasRussianModel) {
  process.stderr.write(
    '[verdict tests] apt-get install fonts-noto-core tesseract-ocr-rus to run the Arabic and Russian OCR tests; ' +
      'skipping them\n',
  );
}

/** Dark text on a light ground, as a screenshot of a chat. */
async function screenshot(text: string, font = 'DejaVu Sans'): Promise<Buffer> {
  const svg = `<svg width="640" height="160"><text x="20" y="90" font-family="${font}" font-size="30" fill="#222">${text}</text></svg>`;
  return sharp({ create: { width: 640, height: 160, channels: 3, background: '#f4f4f4' } })
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toBuffer();
}

async function plainPhoto(): Promise<Buffer> {
  return sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 120, sigma: 50 },
    },
  })
    .blur(3)
    .jpeg()
    .toBuffer();
}

describe('text in images (OCR), judged by the text model', () => {
  let t: TestApp;
  let media: TestServer;
  let dir: string;
  beforeAll(async () => {
    // two seconds of a meme as H.264: the sampled frames carry the caption
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-ocr-'));
    fs.writeFileSync(path.join(dir, 'meme.jpg'), await meme('I WILL KILL YOU'));
    const clip = path.join(dir, 'meme.mp4');
    execFileSync(
      videoTools().ffmpeg,
      ['-v', 'error', '-y', '-loop', '1', '-i', path.join(dir, 'meme.jpg'), '-t', '2', '-r', '5'].concat([
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        clip,
      ]),
      { stdio: 'pipe' },
    );
    const video = fs.readFileSync(clip);
    media = await serve((_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end(video));
    // the real image and text models, OCR on (the default)
    t = await createTestApp({
      // a generous time bound: test files run side by side on two cores, and a read over time is dropped
      config: {
        allowHttpMedia: true,
        contentRetentionMs: 30 * 86_400_000,
        ocr: { enabled: true, timeoutMs: 20_000 },
      },
      overrides: {
        imageFetch: {
          isAllowedAddress: (ip) => ip === '127.0.0.1',
          lookup: async () => [{ address: '127.0.0.1', family: 4 }],
        },
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await media?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const check = (bytes: Buffer, policyId = 'default') =>
    t.request('POST', '/v1/check', {
      body: { content: bytes.toString('base64'), contentType: 'image', policyId },
    });

  it('reads a threat written on a photo and decides it by the text categories', async () => {
    const res = await check(await meme('I WILL KILL YOU'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ocr.text).toMatch(/WILL KILL YOU/);
    expect(res.body.ocr.confidence).toBeGreaterThan(0.6);
    expect(res.body.ocr.regions[0].box.y).toBeGreaterThan(30);
    expect(res.body.ocr.regions[0].box.y).toBeLessThan(110);
    const byName = Object.fromEntries(res.body.categories.map((c: { category: string }) => [c.category, c]));
    for (const category of ['hate', 'harassment', 'violence', 'toxicity', 'profanity', 'spam', 'self_harm']) {
      expect({ category, evaluated: byName[category].evaluated }).toEqual({ category, evaluated: true });
    }
    expect(byName.violence.triggered).toBe(true);
    expect(res.body.action).not.toBe('allow');
    const stored = await t.request('GET', `/v1/decisions/${res.body.decisionId}`);
    expect(stored.body.ocr).toEqual(res.body.ocr);
  }, 60_000);

  it('doNotStore and content retention remove the text read in the image with the content', async () => {
    const words = (ocr: { text: string; regions: { text: string }[] }) => [
      ocr.text,
      ...ocr.regions.map((r) => r.text),
    ];
    const image = (await meme('I WILL KILL YOU')).toString('base64');
    const res = await t.request('POST', '/v1/check', {
      body: { content: image, contentType: 'image', policyId: 'default', doNotStore: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.ocr.text).toMatch(/WILL KILL YOU/); // the answer keeps it
    const unstored = (await t.request('GET', `/v1/decisions/${res.body.decisionId}`)).body;
    expect(unstored.content).toBe('');
    expect(words(unstored.ocr).every((w) => w === '')).toBe(true);
    expect(unstored.ocr.confidence).toBe(res.body.ocr.confidence);

    const kept = await check(await meme('I WILL KILL YOU'));
    expect(kept.body.ocr.text).toMatch(/WILL KILL YOU/);
    await t.ctx.database.db
      .updateTable('decisions')
      .set({ created_at: new Date(Date.now() - 40 * 86_400_000).toISOString() })
      .where('id', '=', kept.body.decisionId)
      .execute();
    expect((await t.ctx.retention.sweep()).redacted).toBe(1);
    const redacted = (await t.request('GET', `/v1/decisions/${kept.body.decisionId}`)).body;
    expect(redacted.content).toBe('');
    expect(words(redacted.ocr).every((w) => w === '')).toBe(true);
    expect(redacted.ocr.regions).toHaveLength(kept.body.ocr.regions.length);
  }, 60_000);

  it.skipIf(!hasArabicFont || !hasRussianModel)(
    'reads Arabic without a language hint: the script is found, the text categories decide, ocr.language is ar',
    async () => {
      // "I will kill you" in Noto Sans Arabic (Debian's fonts-noto-core, installed by .ci/run): the English read
      // finds nothing confident, then the Russian and the Arabic models read (the alef may lose its hamza: اقتلك)
      const res = await check(await screenshot('سوف أقتلك', 'Noto Sans Arabic'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.ocr.text).toMatch(/سوف [أا]قتلك/);
      expect(res.body.ocr.language).toBe('ar');
      const violence = res.body.categories.find((c: { category: string }) => c.category === 'violence');
      expect(violence).toMatchObject({ evaluated: true, triggered: true });
      expect(res.body.action).not.toBe('allow');
    },
    60_000,
  );

  it.skipIf(!hasRussianModel)(
    "reads Russian with the request's language hint (the Russian model reads first)",
    async () => {
      const res = await t.request('POST', '/v1/check', {
        body: {
          content: (await screenshot('Я найду тебя и убью')).toString('base64'),
          contentType: 'image',
          policyId: 'default',
          language: 'ru',
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // the model comes from Debian's tesseract-ocr-rus (installed by .ci/run): no npm package carries it
      expect(res.body.ocr.text).toBe('Я найду тебя и убью');
      expect(res.body.ocr.language).toBe('ru');
      const violence = res.body.categories.find((c: { category: string }) => c.category === 'violence');
      expect(violence).toMatchObject({ evaluated: true, triggered: true });
    },
    60_000,
  );

  it('reads dark text on a light ground (a screenshot)', async () => {
    const res = await check(await screenshot('you are a worthless idiot, go away'), 'strict');
    expect(res.body.ocr.text).toContain('worthless idiot');
    const harassment = res.body.categories.find((c: { category: string }) => c.category === 'harassment');
    expect(harassment.evaluated).toBe(true);
    expect(res.body.flagged).toBe(true);
  }, 60_000);

  it('leaves a photo without text as before: text categories not evaluated, no ocr field', async () => {
    const res = await check(await plainPhoto());
    expect(res.status).toBe(200);
    expect(res.body.ocr).toBeUndefined();
    const hate = res.body.categories.find((c: { category: string }) => c.category === 'hate');
    expect(hate).toMatchObject({ evaluated: false, score: 0 });
  }, 60_000);

  it('judges text in multi-modal images too', async () => {
    const res = await t.request('POST', '/v1/check/multimodal', {
      body: { policyId: 'default', images: [(await meme('I WILL KILL YOU')).toString('base64')] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const violence = res.body.results[0].categories.find(
      (c: { category: string }) => c.category === 'violence',
    );
    expect(violence.evaluated).toBe(true);
  }, 60_000);

  it('reads text in sampled video frames: the threat decides the video', async () => {
    const res = await t.request('POST', '/v1/check', {
      body: {
        content: `http://media.public.test:${media.port}/meme.mp4`,
        contentType: 'video',
        policyId: 'default',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const violence = res.body.categories.find((c: { category: string }) => c.category === 'violence');
    expect(violence).toMatchObject({ evaluated: true, triggered: true });
    expect(res.body.action).not.toBe('allow');
  }, 90_000);

  it('reads offline: nothing is fetched (a child process whose network access throws)', () => {
    const script = path.join(here, 'helpers', 'ocr-offline.mts');
    const out = execFileSync(
      process.execPath,
      ['--require', path.join(here, 'helpers', 'no-network.cjs'), '--import', 'tsx', script],
      { cwd: path.resolve(here, '..'), encoding: 'utf8', timeout: 60_000 },
    );
    expect(JSON.parse(out.trim().split('\n').pop()!).text).toMatch(/WILL KILL YOU/);
  }, 60_000);
});

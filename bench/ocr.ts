/**
 * OCR: words recognised correctly on generated images — sentences in Latin-script languages rendered in several
 * fonts, sizes and colours on photo-like and flat backgrounds (meme captions, screenshots, coloured banners) — and
 * the time per image with text, against photos without text (which the presence test lets through cheaply).
 *   node --import tsx bench/ocr.ts
 * A word counts as recognised when it appears (case and punctuation aside) among the words read.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { OcrEngine } from '../packages/server/src/ocr/engine.ts';
import { makePhotos } from './lib/images.ts';

const SENTENCES: Record<string, string> = {
  en: 'I will find you and hurt you',
  es: 'Te voy a encontrar mañana',
  fr: 'Je vais te trouver ce soir',
  de: 'Ich werde dich heute finden',
  pt: 'Eu vou te encontrar amanhã',
  it: 'Ti troverò domani sera',
  nl: 'Ik ga je morgen vinden',
  sv: 'Jag kommer att hitta dig',
  pl: 'Znajdę cię jutro wieczorem',
  cs: 'Zítra tě najdu doma',
  tr: 'Seni yarın bulacağım',
  id: 'Aku akan menemukanmu besok',
};
const FONTS = ['DejaVu Sans', 'DejaVu Serif', 'Liberation Sans', 'DejaVu Sans Mono'];
type Style = 'meme' | 'screenshot' | 'banner';
const STYLES: Style[] = ['meme', 'screenshot', 'banner'];
const SIZES = [30, 44];

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

async function background(style: Style, seed: number): Promise<Buffer> {
  if (style === 'screenshot') {
    return sharp({ create: { width: 720, height: 200, channels: 3, background: '#f5f5f5' } })
      .png()
      .toBuffer();
  }
  if (style === 'banner') {
    return sharp({ create: { width: 720, height: 200, channels: 3, background: '#1d3557' } })
      .png()
      .toBuffer();
  }
  return sharp({
    create: {
      width: 720,
      height: 200,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 100 + (seed % 5) * 10, sigma: 50 },
    },
  })
    .blur(3)
    .png()
    .toBuffer();
}

async function render(text: string, font: string, size: number, style: Style, seed: number): Promise<Buffer> {
  const paint =
    style === 'meme'
      ? 'fill="white" stroke="black" stroke-width="2" font-weight="bold"'
      : style === 'banner'
        ? 'fill="#ffd166"'
        : 'fill="#222"';
  const svg = `<svg width="720" height="200"><text x="20" y="110" font-family="${font}" font-size="${size}" ${paint}>${xmlEscape(text)}</text></svg>`;
  return sharp(await background(style, seed))
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 85 })
    .toBuffer();
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');

const engine = new OcrEngine({ timeoutMs: 10_000, maxPixels: 100_000_000 });
await engine.read(await render('warm up the engine', 'DejaVu Sans', 40, 'screenshot', 0));
const perLanguage: Record<string, { found: number; total: number }> = {};
const perStyle: Record<string, { found: number; total: number }> = {};
let textMs = 0;
let images = 0;
let seed = 0;
for (const [language, sentence] of Object.entries(SENTENCES)) {
  for (const font of FONTS) {
    for (const style of STYLES) {
      for (const size of SIZES) {
        const image = await render(sentence, font, size, style, seed++);
        const started = performance.now();
        const read = await engine.read(image);
        textMs += performance.now() - started;
        images++;
        const got = words(read?.text ?? '');
        const expected = words(sentence);
        const found = expected.filter((w) => {
          const i = got.indexOf(w);
          if (i < 0) return false;
          got.splice(i, 1);
          return true;
        }).length;
        for (const [key, table] of [
          [language, perLanguage],
          [style, perStyle],
        ] as const) {
          table[key] ??= { found: 0, total: 0 };
          table[key].found += found;
          table[key].total += expected.length;
        }
      }
    }
  }
}
const pct = (r: { found: number; total: number }) => `${((100 * r.found) / r.total).toFixed(1)} %`;
const all = Object.values(perLanguage).reduce(
  (a, r) => ({ found: a.found + r.found, total: a.total + r.total }),
  {
    found: 0,
    total: 0,
  },
);
console.log(`words recognised: ${pct(all)} of ${all.total} over ${images} images`);
console.log(
  `by language: ${Object.entries(perLanguage)
    .map(([k, r]) => `${k} ${pct(r)}`)
    .join(', ')}`,
);
console.log(
  `by style: ${Object.entries(perStyle)
    .map(([k, r]) => `${k} ${pct(r)}`)
    .join(', ')}`,
);
console.log(
  `images with text: ${(textMs / images).toFixed(0)} ms each (${((1000 * images) / textMs).toFixed(1)} images/s)`,
);

let plainMs = 0;
for (let i = 0; i < 40; i++) {
  const plain = await sharp({
    create: {
      width: 640,
      height: 480,
      channels: 3,
      background: '#000',
      noise: { type: 'gaussian', mean: 90 + i, sigma: 60 },
    },
  })
    .blur(2.5)
    .jpeg()
    .toBuffer();
  const started = performance.now();
  await engine.read(plain);
  plainMs += performance.now() - started;
}
console.log(`photos without text: ${(plainMs / 40).toFixed(1)} ms each for the presence test`);
await engine.close();

// Photos without text through the image evaluator, with and without OCR, in the same run: images/s of the bundled
// image model alone vs the model with the OCR presence test beside it (8 in flight, 2 model workers).
{
  const { ImageModelPool } = await import('../packages/server/src/providers/local-image/pool.ts');
  const { LocalImageProvider } = await import('../packages/server/src/providers/local-image/provider.ts');
  const { ImageEvaluator } = await import('../packages/server/src/domain/image-evaluator.ts');
  const { LocalTextProvider } = await import('../packages/server/src/providers/local-text.ts');
  const pool = new ImageModelPool({ size: 2, maxPixels: 100_000_000 });
  await pool.start();
  const provider = new LocalImageProvider(pool);
  const fetch = { allowPrivate: false, allowHttp: false };
  const ocr = new OcrEngine({ timeoutMs: 3000, maxPixels: 100_000_000 });
  const withOcr = new ImageEvaluator(provider, fetch, { engine: ocr, text: new LocalTextProvider() });
  const without = new ImageEvaluator(provider, fetch);
  const photos = (await makePhotos(16, { rect: false })).map((photo) => photo.toString('base64'));
  const rate = async (evaluator: InstanceType<typeof ImageEvaluator>, seconds: number) => {
    let done = 0;
    let next = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (performance.now() < deadline) {
          const prepared = evaluator.prepare(photos[next++ % photos.length], 'content');
          const result = await evaluator.evaluate(prepared, { language: 'en' });
          if (result.ocr) throw new Error('text read in a photo without text');
          done++;
        }
      }),
    );
    return (done * 1000) / (performance.now() - started);
  };
  await rate(without, 2);
  const off1 = await rate(without, 8);
  const on = await rate(withOcr, 8);
  const off2 = await rate(without, 8);
  const off = (off1 + off2) / 2;
  console.log(
    `photos without text: ${on.toFixed(1)} images/s with OCR on, ${off.toFixed(1)} off (${off1.toFixed(1)}, ${off2.toFixed(1)}); ratio ${(on / off).toFixed(2)}`,
  );
  await ocr.close();
  await pool.close();
}

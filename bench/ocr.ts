/**
 * OCR in the 17 languages the text model serves: words recognised correctly on generated images — two sentences
 * per language the team wrote for this bench, in two fonts per script (Debian's fonts-dejavu, fonts-noto-core,
 * fonts-noto-cjk: install them first), two sizes, three styles (meme captions: white outlined text on a photo-like
 * ground; screenshots; coloured banners) — read three ways in the same run: the English model only (the engine
 * before), the request's language naming the model (`hint`), and `auto` (English first, then the language's own
 * Latin model or the other scripts' models). Then images/s with text, and photos without text (the presence test).
 *   apt-get install -y fonts-noto-core fonts-noto-cjk fonts-dejavu tesseract-ocr-rus
 *   node --import tsx bench/ocr.ts [languages, comma-separated]
 * A word counts as recognised when it appears (after NFC, lower case, split on non-letters) among the words read;
 * Japanese, written without spaces, counts characters.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { LANGUAGES, type Language } from '../packages/server/src/domain/taxonomy.ts';
import { OcrEngine } from '../packages/server/src/ocr/engine.ts';
import { makePhotos } from './lib/images.ts';
import { imagesFor, renderText, words, wordsFound } from './lib/ocr-images.ts';

const only = process.argv[2]?.split(',') as Language[] | undefined;
const languages = only ?? [...LANGUAGES];
type Mode = 'eng' | 'hint' | 'auto';
const MODES: Mode[] = ['eng', 'hint', 'auto'];
const engines: Record<Mode, OcrEngine> = {
  eng: new OcrEngine({ timeoutMs: 10_000, maxPixels: 100_000_000, languages: ['en'] }),
  hint: new OcrEngine({ timeoutMs: 10_000, maxPixels: 100_000_000, maxWorkers: 17 }),
  auto: new OcrEngine({ timeoutMs: 10_000, maxPixels: 100_000_000, maxWorkers: 17 }),
};
const warm = await renderText('warm up the engine', 'DejaVu Sans', 40, 'screenshot', 0);
for (const engine of Object.values(engines)) await engine.read(warm);
console.log(`models installed: ${engines.auto.languages.join(', ')}`);

interface Tally {
  found: number;
  total: number;
  ms: number;
  /** CPU time of the whole process (all threads: tesseract's workers, libvips): the machine is shared. */
  cpuMs: number;
  images: number;
}
const tally = () => ({ found: 0, total: 0, ms: 0, cpuMs: 0, images: 0 });
const pct = (t: Tally) => `${((100 * t.found) / t.total).toFixed(1)} %`;
const speed = (t: Tally) =>
  `${((1000 * t.images) / t.ms).toFixed(2)}/s (${(t.cpuMs / t.images).toFixed(0)} ms CPU)`;
const rows: Record<string, Record<Mode, Tally>> = {};
const byStyle: Record<string, Record<Mode, Tally>> = {};
for (const language of languages) {
  rows[language] = { eng: tally(), hint: tally(), auto: tally() };
  for (const { image, text, style } of await imagesFor(language)) {
    byStyle[style] ??= { eng: tally(), hint: tally(), auto: tally() };
    for (const mode of MODES) {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const read = await engines[mode].read(image, mode === 'hint' ? language : 'auto');
      const ms = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const expected = words(text, language);
      const found = wordsFound(expected, words(read?.text ?? '', language));
      if (process.env.OCR_BENCH_VERBOSE)
        console.log(language, mode, ms.toFixed(0), JSON.stringify(read?.text));
      for (const t of [rows[language][mode], byStyle[style][mode]]) {
        t.found += found;
        t.total += expected.length;
        t.ms += ms;
        t.cpuMs += (cpu.user + cpu.system) / 1000;
        t.images++;
      }
    }
  }
  const r = rows[language];
  console.error(
    `${language}: ${pct(r.eng)} / ${pct(r.hint)} / ${pct(r.auto)}, ${speed(r.eng)} / ${speed(r.hint)} / ${speed(r.auto)}`,
  );
}
console.log(
  '\n| language | images | words | eng only | hint | auto | images/s (CPU per image) eng / hint / auto |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const sum = (mode: Mode) =>
  Object.values(rows).reduce(
    (a, r) => ({
      found: a.found + r[mode].found,
      total: a.total + r[mode].total,
      ms: a.ms + r[mode].ms,
      cpuMs: a.cpuMs + r[mode].cpuMs,
      images: a.images + r[mode].images,
    }),
    tally(),
  );
for (const [language, r] of [
  ...Object.entries(rows),
  ['all', { eng: sum('eng'), hint: sum('hint'), auto: sum('auto') }] as const,
]) {
  console.log(
    `| ${language} | ${r.eng.images} | ${r.eng.total} | ${pct(r.eng)} | ${pct(r.hint)} | ${pct(r.auto)} | ${speed(r.eng)} / ${speed(r.hint)} / ${speed(r.auto)} |`,
  );
}
console.log(
  `by style (eng / hint / auto): ${Object.entries(byStyle)
    .map(([k, r]) => `${k} ${pct(r.eng)} / ${pct(r.hint)} / ${pct(r.auto)}`)
    .join(', ')}`,
);
console.log(
  `live workers: ${engines.auto.liveWorkers().length + engines.hint.liveWorkers().length + 1}, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
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
  if (await engines.auto.read(plain)) throw new Error('text read in a photo without text');
  plainMs += performance.now() - started;
}
console.log(
  `photos without text: ${(plainMs / 40).toFixed(1)} ms each (${((40 * 1000) / plainMs).toFixed(0)} images/s), auto`,
);
for (const engine of Object.values(engines)) await engine.close();

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

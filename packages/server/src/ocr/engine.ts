import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { type Polarity, textPolarities } from './text-presence.ts';

const require = createRequire(import.meta.url);

export interface OcrRegion {
  text: string;
  confidence: number;
  /** Pixels of the image as submitted (OCR reads a copy at most 1600 px wide; boxes are scaled back). */
  box: { x: number; y: number; width: number; height: number };
}

export interface OcrResult {
  text: string;
  /** Mean confidence (0–1) of the kept words. */
  confidence: number;
  regions: OcrRegion[];
  /** The tesseract model read with. */
  language: string;
}

/** Words below this confidence (0–100) are noise (textures read as letters), not text. */
const MIN_WORD_CONFIDENCE = 60;
const READ_WIDTH = 1600;

/**
 * Text in images, offline: tesseract.js (WebAssembly, in its own worker thread) with the English LSTM model from
 * the `@tesseract.js-data/eng` package; the core's wasm comes from the `tesseract.js-core` package. Nothing is
 * fetched: the language path is a local directory and caching is off. A cheap presence test runs first; only
 * images that may carry text are read, each as a greyscale image thresholded for its text polarity (white
 * outlined meme captions, dark screenshot text), within `timeoutMs` (a read over time is abandoned and the
 * worker replaced).
 */
export class OcrEngine {
  private worker: Promise<Worker> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: { timeoutMs: number; maxPixels: number }) {}

  /** Recognised text, or null when the image shows none. */
  async read(bytes: Uint8Array): Promise<OcrResult | null> {
    const polarities = await textPolarities(bytes, this.options.maxPixels);
    if (polarities.length === 0) return null;
    // one read at a time: the tesseract worker is single-threaded
    const job = this.queue.then(() => this.readNow(bytes, polarities));
    this.queue = job.catch(() => {});
    return job;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await (await worker).terminate();
  }

  private async readNow(bytes: Uint8Array, polarities: Polarity[]): Promise<OcrResult | null> {
    const meta = await sharp(bytes, { limitInputPixels: this.options.maxPixels }).metadata();
    const width = meta.width ?? READ_WIDTH;
    const scale = width > READ_WIDTH ? width / READ_WIDTH : 1;
    let best: OcrResult | null = null;
    for (const polarity of polarities) {
      let pipeline = sharp(bytes, { limitInputPixels: this.options.maxPixels, pages: 1 })
        .greyscale()
        .resize({ width: READ_WIDTH, withoutEnlargement: true });
      // tesseract reads dark text on light ground best: light text is thresholded and inverted
      pipeline = polarity === 'light' ? pipeline.threshold(200).negate() : pipeline.threshold(100);
      const input = await pipeline.png().toBuffer();
      const result = await this.recognize(input, scale);
      if (result && (!best || result.regions.length > best.regions.length)) best = result;
    }
    return best;
  }

  private async recognize(input: Buffer, scale: number): Promise<OcrResult | null> {
    const worker = await this.ensureWorker();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OcrTimeoutError()), this.options.timeoutMs);
    });
    try {
      const { data } = await Promise.race([worker.recognize(input, {}, { blocks: true }), timeout]);
      const regions: OcrRegion[] = [];
      for (const block of data.blocks ?? []) {
        for (const paragraph of block.paragraphs) {
          for (const line of paragraph.lines) {
            const words = line.words.filter(
              (w) => w.confidence >= MIN_WORD_CONFIDENCE && /\p{L}/u.test(w.text),
            );
            // a lone short "word" is a texture read as letters (photos give "Ly", "I}"), not a caption
            const letters = (t: string) => t.match(/\p{L}/gu)?.length ?? 0;
            if (words.length === 0 || (words.length === 1 && letters(words[0]!.text) < 4)) continue;
            const x0 = Math.min(...words.map((w) => w.bbox.x0));
            const y0 = Math.min(...words.map((w) => w.bbox.y0));
            const x1 = Math.max(...words.map((w) => w.bbox.x1));
            const y1 = Math.max(...words.map((w) => w.bbox.y1));
            regions.push({
              text: words.map((w) => w.text).join(' '),
              confidence: round(words.reduce((s, w) => s + w.confidence, 0) / words.length / 100),
              box: {
                x: Math.round(x0 * scale),
                y: Math.round(y0 * scale),
                width: Math.round((x1 - x0) * scale),
                height: Math.round((y1 - y0) * scale),
              },
            });
          }
        }
      }
      if (regions.length === 0) return null;
      return {
        text: regions.map((r) => r.text).join('\n'),
        confidence: round(regions.reduce((s, r) => s + r.confidence, 0) / regions.length),
        regions,
        language: 'eng',
      };
    } catch (error) {
      if (error instanceof OcrTimeoutError) {
        // the wasm call cannot be interrupted: drop the worker, a fresh one serves the next image
        const stuck = this.worker;
        this.worker = null;
        stuck?.then((w) => w.terminate()).catch(() => {});
        return null;
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private ensureWorker(): Promise<Worker> {
    if (!this.worker) {
      const langPath = path.join(
        path.dirname(require.resolve('@tesseract.js-data/eng/package.json')),
        '4.0.0_best_int',
      );
      this.worker = createWorker('eng', OEM.LSTM_ONLY, {
        langPath,
        gzip: true,
        cacheMethod: 'none',
        // the default node worker script and the core wasm resolve inside node_modules; nothing is downloaded
        logger: () => {},
        errorHandler: () => {},
      }).then(async (worker) => {
        // photos carry no resolution tesseract trusts; saying so keeps it from warning on every image
        await worker.setParameters({ user_defined_dpi: '150' });
        return worker;
      });
      this.worker.catch(() => {
        this.worker = null;
      });
    }
    return this.worker;
  }
}

class OcrTimeoutError extends Error {}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

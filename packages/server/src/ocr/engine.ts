import { detectLanguage } from '@verdict/text-model';
import sharp from 'sharp';
import { LANGUAGES, type Language } from '../domain/taxonomy.ts';
import { OCR_MODELS, SYSTEM_TESSDATA_DIRS, traineddataLocation } from './languages.ts';
import { pageRegions, round, weight, wordCounts } from './regions.ts';
import { type Polarity, textPolarities } from './text-presence.ts';
import { OcrTimeoutError, OcrWorkers } from './workers.ts';

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
  /** The tesseract model read with (`eng`, `ara`, …); the evaluators report the text model's language instead. */
  language: string;
}

export interface OcrOptions {
  /** Bound on one image's reading, all passes together. */
  timeoutMs: number;
  maxPixels: number;
  /** The languages read (default: every one whose model is installed). */
  languages?: readonly Language[];
  /** Live tesseract workers at most (one per model). */
  maxWorkers?: number;
  /** Where models no npm package carries are looked for. */
  tessdataDirs?: readonly string[];
}

const READ_WIDTH = 1600;
/** A Latin read this confident (mean word confidence) is taken as Latin script: no other script is tried. */
const CONFIDENT = 0.8;
/** A read of another script this confident ends the search (the non-Latin models score their own text lower). */
const SCRIPT_CONFIDENT = 0.7;
/** Scripts tried, in order, when the Latin read finds no confident text. */
const SCRIPT_ORDER: Language[] = ['ru', 'ar', 'hi', 'ja', 'ko'];

/**
 * Text in images, offline: tesseract.js (WebAssembly, worker threads) with the LSTM models of the
 * `@tesseract.js-data/<model>` packages for the languages the text model serves (Russian, which no package carries,
 * from a tessdata directory such as Debian's `tesseract-ocr-rus`). Nothing is fetched. A cheap presence test runs
 * first; only images that may carry text are read, each as a greyscale image thresholded for its text polarity
 * (white outlined meme captions, dark screenshot text), within `timeoutMs` for all passes together.
 *
 * Which models read an image: the request's language's model first (`auto` and the default `en`: the English
 * model; 12 of the 17 languages are written in Latin script and it reads them, diacritics aside). When the English
 * model reads confident text whose language the text model's detector names, that language's own model re-reads
 * it for its diacritics; when the first read finds no confident text, the other scripts' models read in turn
 * until one is confident (Russian, Arabic, Hindi, Japanese, Korean).
 */
export class OcrEngine {
  readonly languages: readonly Language[];
  private readonly workers: OcrWorkers;

  constructor(private readonly options: OcrOptions) {
    const dirs = options.tessdataDirs ?? SYSTEM_TESSDATA_DIRS;
    this.languages = (options.languages ?? LANGUAGES).filter((l) =>
      traineddataLocation(OCR_MODELS[l].model, dirs),
    );
    this.workers = new OcrWorkers({ maxWorkers: options.maxWorkers ?? 4, tessdataDirs: dirs });
  }

  /**
   * Recognised text, or null when the image shows none. `hint` is the request's language: its model reads first
   * (requests default to `en`, which is also where `auto` starts), and a read that finds no confident text goes on
   * to the other scripts.
   */
  async read(bytes: Uint8Array, hint: Language | 'auto' = 'auto'): Promise<OcrResult | null> {
    const polarities = await textPolarities(bytes, this.options.maxPixels);
    if (polarities.length === 0 || this.languages.length === 0) return null;
    const deadline = Date.now() + this.options.timeoutMs;
    const inputs = await this.prepare(bytes, polarities);
    const latin = this.languages.includes('en')
      ? 'en'
      : this.languages.find((l) => OCR_MODELS[l].script === 'latin');
    const first = hint !== 'auto' && this.languages.includes(hint) ? hint : (latin ?? this.languages[0]!);
    const counts = { words: 0, letterWords: 0 };
    let best = await this.readWith(first, inputs, deadline, counts);
    // words, none of them with a letter (numbers, a clock, a test pattern): no other script is there to read
    if (!best && counts.words > 0 && counts.letterWords === 0) return null;
    if (best && best.confidence >= (OCR_MODELS[first].script === 'latin' ? CONFIDENT : SCRIPT_CONFIDENT)) {
      return first === latin ? this.refineLatin(best, first, inputs, deadline) : best;
    }
    const rest = [...(latin ? [latin] : []), ...SCRIPT_ORDER].filter(
      (l) => l !== first && this.languages.includes(l),
    );
    for (const language of rest) {
      if (Date.now() >= deadline) break;
      const read = await this.readWith(language, inputs, deadline);
      if (read && (!best || weight(read.regions) > weight(best.regions))) best = read;
      if (best?.language === OCR_MODELS[language].model && best.confidence >= SCRIPT_CONFIDENT) break;
    }
    return best;
  }

  /**
   * Latin text read by the English model, re-read by its own language's model when the text model's detector
   * names another Latin-script language: the English model drops diacritics (ł, ş, ř, ñ) the text model needs.
   */
  private async refineLatin(
    read: OcrResult,
    latin: Language,
    inputs: { input: Buffer; scale: number }[],
    deadline: number,
  ): Promise<OcrResult> {
    const detected = detectLanguage(read.text) as Language | null;
    if (!detected || detected === latin || !this.languages.includes(detected)) return read;
    if (OCR_MODELS[detected].script !== 'latin') return read;
    const own = await this.readWith(detected, inputs, deadline);
    // kept unless it reads clearly less
    return own && weight(own.regions) >= 0.9 * weight(read.regions) ? own : read;
  }

  /** Models with a live tesseract worker (for the bench's memory report). */
  liveWorkers(): string[] {
    return this.workers.live();
  }

  async close(): Promise<void> {
    await this.workers.close();
  }

  private async prepare(
    bytes: Uint8Array,
    polarities: Polarity[],
  ): Promise<{ input: Buffer; scale: number }[]> {
    const meta = await sharp(bytes, { limitInputPixels: this.options.maxPixels }).metadata();
    const width = meta.width ?? READ_WIDTH;
    const scale = width > READ_WIDTH ? width / READ_WIDTH : 1;
    return Promise.all(
      polarities.map(async (polarity) => {
        const pipeline = sharp(bytes, { limitInputPixels: this.options.maxPixels, pages: 1 })
          .greyscale()
          .resize({ width: READ_WIDTH, withoutEnlargement: true });
        // tesseract reads dark text on light ground best: light text is thresholded and inverted
        const input = await (polarity === 'light'
          ? pipeline.threshold(200).negate()
          : pipeline.threshold(100)
        )
          .png()
          .toBuffer();
        return { input, scale };
      }),
    );
  }

  /** The best read of the thresholded copies with one language's model; null when none shows text or time ran out. */
  private async readWith(
    language: Language,
    inputs: { input: Buffer; scale: number }[],
    deadline: number,
    counts?: { words: number; letterWords: number },
  ): Promise<OcrResult | null> {
    const { model, script } = OCR_MODELS[language];
    let best: OcrResult | null = null;
    for (const { input, scale } of inputs) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let regions: OcrRegion[];
      try {
        const page = await this.workers.recognize(model, input, left);
        if (counts) {
          const found = wordCounts(page);
          counts.words += found.words;
          counts.letterWords += found.letterWords;
        }
        regions = pageRegions(page, scale, script);
      } catch (error) {
        if (error instanceof OcrTimeoutError) break;
        throw error;
      }
      if (regions.length === 0 || (best && weight(regions) <= weight(best.regions))) continue;
      best = {
        text: regions.map((r) => r.text).join('\n'),
        confidence: round(regions.reduce((s, r) => s + r.confidence, 0) / regions.length),
        regions,
        language: model,
      };
    }
    return best;
  }
}

import type { Page } from 'tesseract.js';
import type { OcrRegion } from './engine.ts';
import type { Script } from './languages.ts';

/** Words below this confidence (0–100) are noise (textures read as letters), not text. */
const MIN_WORD_CONFIDENCE = 60;

const letters = (t: string) => t.match(/\p{L}/gu)?.length ?? 0;

/**
 * The lines of a tesseract page worth keeping, boxes scaled back to the submitted image: confident words with
 * letters, and no line that is a lone short "word" (a texture read as letters: photos give "Ly", "I}"). Japanese
 * is written without spaces, so its words are joined without them.
 */
export function pageRegions(page: Page, scale: number, script: Script): OcrRegion[] {
  const minLone = script === 'japanese' || script === 'korean' ? 2 : 4;
  const joiner = script === 'japanese' ? '' : ' ';
  const regions: OcrRegion[] = [];
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words = line.words.filter((w) => w.confidence >= MIN_WORD_CONFIDENCE && /\p{L}/u.test(w.text));
        if (words.length === 0 || (words.length === 1 && letters(words[0]!.text) < minLone)) continue;
        const x0 = Math.min(...words.map((w) => w.bbox.x0));
        const y0 = Math.min(...words.map((w) => w.bbox.y0));
        const x1 = Math.max(...words.map((w) => w.bbox.x1));
        const y1 = Math.max(...words.map((w) => w.bbox.y1));
        regions.push({
          text: words.map((w) => w.text).join(joiner),
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
  return regions;
}

/** Words found at any confidence, and those with a letter in them. */
export function wordCounts(page: Page): { words: number; letterWords: number } {
  const counts = { words: 0, letterWords: 0 };
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        counts.words += line.words.length;
        counts.letterWords += line.words.filter((w) => /\p{L}/u.test(w.text)).length;
      }
    }
  }
  return counts;
}

/** How much confident text a read found: letters weighted by confidence, to compare reads of one image. */
export function weight(regions: readonly OcrRegion[]): number {
  return regions.reduce((s, r) => s + letters(r.text) * r.confidence, 0);
}

export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

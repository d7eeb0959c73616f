import type { CategoryName, Language } from '../domain/taxonomy.ts';
import type { Provider, ProviderResult } from '../providers/provider.ts';
import type { OcrEngine, OcrResult } from './engine.ts';

/** What reads text in images and what judges it. */
export interface ImageTextReader {
  engine: OcrEngine;
  text: Provider;
}

/**
 * Reads the text of an image and scores it with the text provider: null when the image shows no text. The
 * request's language picks the OCR model (for `auto` the engine finds the script); the text model scores the text
 * in that language (or detects it), and the result names the language the text model used.
 */
export async function judgeImageText(
  reader: ImageTextReader,
  bytes: Uint8Array,
  language: Language | 'auto',
  signal?: AbortSignal,
): Promise<{ ocr: OcrResult; result: ProviderResult } | null> {
  const read = await reader.engine.read(bytes, language);
  if (!read) return null;
  const result = await reader.text.evaluate({ contentType: 'text', text: read.text, language }, signal);
  return { ocr: { ...read, language: result.language ?? read.language }, result };
}

/**
 * The image model's scores and the scores of the image's text as one result: each category judged by either is
 * judged, with the higher score when both judged it (`sexual`); highlights point into `ocr.text`.
 */
export function mergeWithText(image: ProviderResult, text: ProviderResult): ProviderResult {
  const scores: Partial<Record<CategoryName, number>> = { ...image.scores };
  for (const category of text.evaluated) {
    scores[category] = Math.max(scores[category] ?? 0, text.scores[category] ?? 0);
  }
  return {
    scores,
    evaluated: [...new Set([...image.evaluated, ...text.evaluated])],
    ...(text.highlights && { highlights: text.highlights }),
    ...(text.language && { language: text.language }),
    modelVersion: `${image.modelVersion}+${text.modelVersion}`,
    cost: image.cost + text.cost,
  };
}

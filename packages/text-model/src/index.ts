import { readFileSync } from 'node:fs';
import { LocalTextModel, type TextModel } from './model.ts';
import { decodeWeights } from './weights.ts';

export {
  SUPPORTED_LANGUAGES,
  type SupportedLanguage,
  TEXT_CATEGORIES,
  type TextCategory,
} from './constants.ts';
export { detectLanguage } from './language.ts';
export type { Highlight, TextClassification, TextModel } from './model.ts';

/** Path of the bundled weights file. */
export const DEFAULT_WEIGHTS_URL = new URL('../weights/text-model.bin', import.meta.url);

/** Loads the bundled weights synchronously (fast: < 500 ms). */
export function loadTextModel(options?: { weightsPath?: string }): TextModel {
  const bytes = readFileSync(options?.weightsPath ?? DEFAULT_WEIGHTS_URL);
  const u8 = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new LocalTextModel(decodeWeights(u8), u8);
}

import { existsSync, readFileSync } from 'node:fs';
import { decodeContextWeights } from './context-model.ts';
import { LocalTextModel, type TextModel } from './model.ts';
import { contextFingerprint, decodeNeuralWeights } from './neural-stage.ts';
import { decodeWeights } from './weights.ts';

export {
  SUPPORTED_LANGUAGES,
  type SupportedLanguage,
  TEXT_CATEGORIES,
  type TextCategory,
} from './constants.ts';
export { detectLanguage } from './language.ts';
export type { ClassifyOptions, Highlight, TextClassification, TextModel } from './model.ts';

/** Path of the bundled weights file. */
export const DEFAULT_WEIGHTS_URL = new URL('../weights/text-model.bin', import.meta.url);

/** Path of the bundled second-stage (context model) weights. */
export const DEFAULT_CONTEXT_WEIGHTS_URL = new URL('../weights/context-model.bin', import.meta.url);

/** Path of the bundled third-stage (neural) weights. */
export const DEFAULT_NEURAL_WEIGHTS_URL = new URL('../weights/neural-model.bin', import.meta.url);

/**
 * Loads the bundled weights synchronously (fast: < 500 ms). The second stage is loaded from `contextWeightsPath`
 * (default: the bundled file, when present); `contextWeightsPath: null` runs the first stage alone. The third stage
 * is loaded from `neuralWeightsPath` (default: the bundled file, when present and the second stage is loaded; `null`:
 * none): a missing file runs the first two stages, as before the third existed; a file trained on another second
 * stage, or given without a second stage, is an error, since its calibration would not fit.
 */
export function loadTextModel(options?: {
  weightsPath?: string;
  contextWeightsPath?: string | null;
  neuralWeightsPath?: string | null;
}): TextModel {
  const bytes = readFileSync(options?.weightsPath ?? DEFAULT_WEIGHTS_URL);
  const u8 = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ctxPath =
    options?.contextWeightsPath === undefined ? DEFAULT_CONTEXT_WEIGHTS_URL : options.contextWeightsPath;
  let context: { weights: ReturnType<typeof decodeContextWeights>; bytes: Uint8Array } | undefined;
  if (ctxPath !== null && existsSync(ctxPath)) {
    const c = readFileSync(ctxPath);
    const cu8 = new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
    context = { weights: decodeContextWeights(cu8), bytes: cu8 };
  }
  // by default the bundled third stage, unless the second stage is off (`contextWeightsPath: null`: first stage alone)
  const nnPath =
    options?.neuralWeightsPath === undefined
      ? context
        ? DEFAULT_NEURAL_WEIGHTS_URL
        : null
      : options.neuralWeightsPath;
  let neural: { weights: ReturnType<typeof decodeNeuralWeights>; bytes: Uint8Array } | undefined;
  if (nnPath !== null && existsSync(nnPath)) {
    const b = readFileSync(nnPath);
    const nu8 = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const weights = decodeNeuralWeights(nu8);
    const want = weights.header.contextFingerprint;
    // (without a second stage, LocalTextModel refuses the third)
    if (context && want !== undefined && contextFingerprint(context.bytes) !== want)
      throw new Error(`${String(nnPath)} was trained on another second stage than ${String(ctxPath)}`);
    neural = { weights, bytes: nu8 };
  }
  return new LocalTextModel(decodeWeights(u8), u8, context, neural);
}

/**
 * The model's evasion-normalising tokenizer (case, diacritics, homoglyphs, leetspeak, masks, repeated and spaced-out
 * letters) and the lexicon type that steers its decoding: the server's match lists normalise with these, so a list
 * matches what the model reads.
 */
export { Lexicon, type LexiconData } from './lexicon.ts';
export { TF_MENTION, TF_NUMBER, Tokenizer } from './tokenize.ts';

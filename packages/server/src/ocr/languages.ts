import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Language } from '../domain/taxonomy.ts';

const require = createRequire(import.meta.url);

export type Script = 'latin' | 'cyrillic' | 'arabic' | 'devanagari' | 'japanese' | 'korean';

/** The tesseract model for each language the text model serves, and the script it reads. */
export const OCR_MODELS: Record<Language, { model: string; script: Script }> = {
  en: { model: 'eng', script: 'latin' },
  es: { model: 'spa', script: 'latin' },
  fr: { model: 'fra', script: 'latin' },
  de: { model: 'deu', script: 'latin' },
  pt: { model: 'por', script: 'latin' },
  it: { model: 'ita', script: 'latin' },
  ru: { model: 'rus', script: 'cyrillic' },
  tr: { model: 'tur', script: 'latin' },
  ar: { model: 'ara', script: 'arabic' },
  hi: { model: 'hin', script: 'devanagari' },
  id: { model: 'ind', script: 'latin' },
  ja: { model: 'jpn', script: 'japanese' },
  ko: { model: 'kor', script: 'korean' },
  pl: { model: 'pol', script: 'latin' },
  nl: { model: 'nld', script: 'latin' },
  sv: { model: 'swe', script: 'latin' },
  cs: { model: 'ces', script: 'latin' },
};

/**
 * Directories holding `<model>.traineddata` for models no `@tesseract.js-data` package carries (Russian: the
 * registry has none; Debian's `tesseract-ocr-rus` installs one here).
 */
export const SYSTEM_TESSDATA_DIRS = [
  '/usr/share/tesseract-ocr/5/tessdata',
  '/usr/share/tesseract-ocr/4.00/tessdata',
];

/**
 * Where a model's traineddata is read from: the `@tesseract.js-data/<model>` package's quantised LSTM model
 * (`4.0.0_best_int/<model>.traineddata.gz`), else the first of `dirs` that has `<model>.traineddata`. Null when
 * neither has it: nothing is ever downloaded.
 */
export function traineddataLocation(
  model: string,
  dirs: readonly string[],
): { langPath: string; gzip: boolean } | null {
  try {
    const pkg = path.dirname(require.resolve(`@tesseract.js-data/${model}/package.json`));
    return { langPath: path.join(pkg, '4.0.0_best_int'), gzip: true };
  } catch {
    const dir = dirs.find((d) => fs.existsSync(path.join(d, `${model}.traineddata`)));
    return dir ? { langPath: dir, gzip: false } : null;
  }
}

import { SUPPORTED_LANGUAGES } from './constants.ts';

/** Flat [a, b] per head for each supported language (index of SUPPORTED_LANGUAGES), pooled where none is given. */
export function plattTable(
  pooled: [number, number][],
  byLang: Partial<Record<string, [number, number][]>> | undefined,
): Float64Array[] {
  return SUPPORTED_LANGUAGES.map((l) => Float64Array.from((byLang?.[l] ?? pooled).flat()));
}

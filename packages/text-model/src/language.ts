import { createRequire } from 'node:module';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from './constants.ts';

type Detect = (text: string, opts?: { only?: string[] }) => string;

let detectFn: Detect | null = null;
const ONLY = [...SUPPORTED_LANGUAGES];
const SUPPORTED = new Set<string>(SUPPORTED_LANGUAGES);
/** Detection looks at a prefix only: enough for tinyld, and keeps 32 KB inputs cheap. */
const DETECT_CHARS = 600;

/**
 * Detects the language with tinyld, restricted to the supported languages. Returns null when the text has no
 * usable letters or the detector is unsure. tinyld (~110 ms to load) is loaded on first use, not at model load.
 */
export function detectLanguage(text: string): SupportedLanguage | null {
  if (detectFn === null) {
    const require = createRequire(import.meta.url);
    detectFn = (require('tinyld') as { detect: Detect }).detect;
  }
  const sample = text.length > DETECT_CHARS ? text.slice(0, DETECT_CHARS) : text;
  const code = detectFn(sample, { only: ONLY });
  return SUPPORTED.has(code) ? (code as SupportedLanguage) : null;
}

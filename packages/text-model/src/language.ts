import { createRequire } from 'node:module';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from './constants.ts';

type Detect = (text: string, opts?: { only?: string[] }) => string;

let detectFn: Detect | null = null;
const ONLY = [...SUPPORTED_LANGUAGES];
const SUPPORTED = new Set<string>(SUPPORTED_LANGUAGES);
/** Detection looks at a prefix only: enough for tinyld and the letter tests below, and keeps 32 KB inputs cheap. */
const DETECT_CHARS = 600;
const prefix = (text: string) => (text.length > DETECT_CHARS ? text.slice(0, DETECT_CHARS) : text);

/**
 * Detects the language with tinyld, restricted to the supported languages. Returns null when the text has no
 * usable letters or the detector is unsure. tinyld (~110 ms to load) is loaded on first use, not at model load.
 */
export function detectLanguage(text: string): SupportedLanguage | null {
  if (detectFn === null) {
    const require = createRequire(import.meta.url);
    detectFn = (require('tinyld') as { detect: Detect }).detect;
  }
  const code = detectFn(prefix(text), { only: ONLY });
  return SUPPORTED.has(code) ? (code as SupportedLanguage) : null;
}

const LETTER = /\p{L}/u;

/** Whether the text has a letter beyond ASCII (é, ö, ğ, another script; not emoji) in its first 200 characters. */
export function beyondAscii(text: string): boolean {
  const m = Math.min(text.length, 200);
  for (let i = 0; i < m; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f && (c < 0xd800 || c > 0xdfff) && LETTER.test(text[i]!)) return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}]+/gu;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAsciiLetter = (c: number) => (c | 32) >= 97 && (c | 32) <= 122;

/**
 * Whether a word of the text's first 600 characters is Arabic written in Latin letters, with a digit for a sound
 * Latin lacks ("3arfa", "7mar", "sha2a", "e2tlak"): exactly one digit, 2, 3, 5, 6, 7 or 9 between two letters, or
 * 3, 5, 7 or 9 before the word's letters; at least three letters. So "b2b", "h3ll0", "2nite", "5th", "mp3" and
 * "covid19" are not taken for one.
 */
export function hasArabizi(text: string): boolean {
  for (const [w] of prefix(text).matchAll(WORD)) if (arabiziWord(w)) return true;
  return false;
}

function arabiziWord(w: string): boolean {
  if (w.length < 4) return false;
  let at = -1;
  for (let i = 0; i < w.length; i++) {
    if (!isDigit(w.charCodeAt(i))) continue;
    if (at >= 0) return false;
    at = i;
  }
  if (at < 0 || at === w.length - 1) return false;
  const d = w[at]!;
  if (at === 0) return '3579'.includes(d) && isAsciiLetter(w.charCodeAt(1));
  return '235679'.includes(d) && isAsciiLetter(w.charCodeAt(at - 1)) && isAsciiLetter(w.charCodeAt(at + 1));
}

/** Letters that only one supported language uses (among the 17): the text's own alphabet tells its language. */
const OWN_LETTERS: [RegExp, SupportedLanguage][] = [
  [/[ışğİŞĞ]/, 'tr'],
  [/[łąęśźżńŁĄĘŚŹŻŃ]/, 'pl'],
  [/[řěůŘĚŮ]/, 'cs'],
  [/[ñ¿¡Ñ]/, 'es'],
  [/[ãõÃÕ]/, 'pt'],
  [/ß/, 'de'],
  [/[œŒ]/, 'fr'],
  [/[åÅ]/, 'sv'],
];

/** The language whose own letters (ı, ł, ř, ñ, ã, ß …) the text's first 600 characters use, if any. */
export function alphabetLanguage(text: string): SupportedLanguage | null {
  const sample = prefix(text);
  for (const [re, lang] of OWN_LETTERS) if (re.test(sample)) return lang;
  return null;
}

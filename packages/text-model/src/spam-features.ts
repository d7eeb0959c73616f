/**
 * Dedicated feature space of the spam head (its own hashed buckets, not shared with the other heads): word unigrams
 * and bigrams of the lower-cased raw text (digit runs as shape tokens `<dN>`, currency symbols as tokens so that
 * "£ <d4>" bigrams carry price shapes) and character 3-5-grams across word boundaries (spaces and punctuation
 * kept, digits mapped to 0), from the first SPAM_FEATURE_CHARS characters, log(1 + count) and L2-normalised.
 */
import { FNV_OFFSET, fmix, hashStep } from './hash.ts';

export const SPAM_FEATURE_CHARS = 1000;

const WORD_SEED = 0x2545f491;
const BIGRAM_SEED = 0x5bd1e995;
const CHAR_SEED = 0x27d4eb2f;

/** word characters of the normalised text: a-z, the apostrophe, and letters from U+00C0 to U+1FFF but × and ÷ */
const WORD_CHAR = new Uint8Array(0x2000);
for (let c = 97; c <= 122; c++) WORD_CHAR[c] = 1;
for (let c = 0xc0; c < 0x2000; c++) WORD_CHAR[c] = c === 0xd7 || c === 0xf7 ? 0 : 1;
WORD_CHAR[39] = 1;

function isWordChar(c: number): boolean {
  return c < 0x2000 && WORD_CHAR[c] === 1;
}

/** normalised ASCII: lower-case letters, digits → '0', tab/newline/CR → space */
const ASCII_NORM = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  ASCII_NORM[c] =
    c >= 65 && c <= 90 ? c + 32 : c >= 48 && c <= 57 ? 48 : c === 9 || c === 10 || c === 13 ? 32 : c;
}

/** text[i] normalised: lower case (ASCII and Latin-1/Latin Extended), digits → '0', whitespace → space */
function normChar(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 128) return ASCII_NORM[c]!;
  if (c === 160) return 32;
  if (c >= 0xc0 && c < 0x250) return text[i]!.toLowerCase().charCodeAt(0);
  return c;
}

/** log(1 + count) for every count a text can reach (≤ 3 n-grams per character of SPAM_FEATURE_CHARS + 2) */
const LOG1P = new Float64Array(3 * SPAM_FEATURE_CHARS + 16);
for (let i = 0; i < LOG1P.length; i++) LOG1P[i] = Math.log1p(i);

/** slots of the per-text count table (≥ 1.6 × the most distinct features a text can have; fits in L1 cache) */
const TABLE = 1 << 13;

/** Counts bucket q in the text's table; returns the new number of distinct buckets. */
function bump(
  keys: Int32Array,
  cnt: Uint16Array,
  idx: Int32Array,
  slots: Int32Array,
  n: number,
  q: number,
): number {
  let s = q & (TABLE - 1);
  for (;;) {
    const k = keys[s]!;
    if (k === 0) {
      keys[s] = q + 1;
      cnt[s] = 1;
      idx[n] = q;
      slots[n] = s;
      return n + 1;
    }
    if (k === q + 1) {
      cnt[s]!++;
      return n;
    }
    s = (s + 1) & (TABLE - 1);
  }
}

export class SpamFeatureExtractor {
  readonly bits: number;
  private readonly mask: number;
  /** small open-addressing table (bucket + 1 → count) of the current text, cleared after each text */
  private readonly keys = new Int32Array(TABLE);
  private readonly cnt = new Uint16Array(TABLE);
  private readonly slots = new Int32Array(5 * (SPAM_FEATURE_CHARS + 2));
  /** capacity: at most 3 char n-grams per position and 2 word features per token */
  readonly idx = new Int32Array(5 * (SPAM_FEATURE_CHARS + 2));
  readonly val = new Float32Array(5 * (SPAM_FEATURE_CHARS + 2));
  n = 0;
  private buf = new Int32Array(SPAM_FEATURE_CHARS + 2);

  /** char n-gram lengths used, as bits 1 << n (n = 3, 4, 5) */
  readonly charGrams: number;

  constructor(bits: number, charGrams = 8 | 16 | 32) {
    this.bits = bits;
    this.charGrams = charGrams;
    this.mask = (1 << bits) - 1;
  }

  /** Fills idx[0..n) / val[0..n) with the text's features. */
  run(text: string): number {
    let n = 0;
    if (this.charGrams !== 0) n = this.charGramFeatures(text, n);
    n = this.wordFeatures(text, n);
    return this.finish(n);
  }

  /** Counts the char n-grams of the normalised text (whitespace runs collapsed, padded with spaces). */
  private charGramFeatures(text: string, n0: number): number {
    const keys = this.keys;
    const cnt = this.cnt;
    const slots = this.slots;
    const idx = this.idx;
    const mask = this.mask;
    let n = n0;
    const len = Math.min(text.length, SPAM_FEATURE_CHARS);
    const cps = this.buf;
    let m = 0;
    cps[m++] = 32;
    for (let i = 0; i < len; i++) {
      const c = normChar(text, i);
      if (c === 32 && cps[m - 1] === 32) continue;
      cps[m++] = c;
    }
    if (cps[m - 1] !== 32) cps[m++] = 32;
    const g = this.charGrams;
    for (let i = 0; i + 3 <= m; i++) {
      let h = hashStep(hashStep(hashStep(CHAR_SEED, cps[i]!), cps[i + 1]!), cps[i + 2]!);
      if ((g & 8) !== 0) n = bump(keys, cnt, idx, slots, n, fmix(h) & mask);
      if (i + 4 <= m) {
        h = hashStep(h, cps[i + 3]!);
        if ((g & 16) !== 0) n = bump(keys, cnt, idx, slots, n, fmix(h) & mask);
        if (i + 5 <= m && (g & 32) !== 0)
          n = bump(keys, cnt, idx, slots, n, fmix(hashStep(h, cps[i + 4]!)) & mask);
      }
    }
    return n;
  }

  /**
   * Counts the word features, in one pass over the text: normalise a character, then letter runs, digit runs (shape
   * <dN>) and symbol runs ("!!!" = one token), each as a unigram and a bigram with the previous token.
   */
  private wordFeatures(text: string, n0: number): number {
    const keys = this.keys;
    const cnt = this.cnt;
    const slots = this.slots;
    const idx = this.idx;
    const mask = this.mask;
    const len = Math.min(text.length, SPAM_FEATURE_CHARS);
    let n = n0;
    let prev = 0;
    let i = 0;
    let c = len > 0 ? normChar(text, 0) : 32;
    while (i < len) {
      if (c === 32) {
        i++;
        c = i < len ? normChar(text, i) : 32;
        continue;
      }
      let h: number;
      if (isWordChar(c)) {
        h = FNV_OFFSET;
        do {
          h = hashStep(h, c);
          i++;
          c = i < len ? normChar(text, i) : 32;
        } while (isWordChar(c));
      } else if (c === 48) {
        let d = 0;
        do {
          d++;
          i++;
          c = i < len ? normChar(text, i) : 32;
        } while (c === 48);
        h = hashStep(hashStep(FNV_OFFSET, 0x3c64), Math.min(d, 12));
      } else {
        const sym = c;
        h = hashStep(hashStep(FNV_OFFSET, 0x5379), sym);
        do {
          i++;
          c = i < len ? normChar(text, i) : 32;
        } while (c === sym);
      }
      n = bump(keys, cnt, idx, slots, n, fmix(hashStep(h, WORD_SEED)) & mask);
      if (prev !== 0)
        n = bump(keys, cnt, idx, slots, n, fmix(hashStep(hashStep(prev, BIGRAM_SEED), h)) & mask);
      prev = h;
    }
    return n;
  }

  /** Turns the counts of the n features found into log(1 + count) values, L2-normalised, and clears the table. */
  private finish(n: number): number {
    const keys = this.keys;
    const cnt = this.cnt;
    const slots = this.slots;
    // log(1 + count), L2-normalised
    let ss = 0;
    for (let j = 0; j < n; j++) {
      const sl = slots[j]!;
      const v = LOG1P[cnt[sl]!]!;
      keys[sl] = 0;
      this.val[j] = v;
      ss += v * v;
    }
    const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
    for (let j = 0; j < n; j++) this.val[j]! *= inv;
    this.n = n;
    return n;
  }
}

import { createHash } from 'node:crypto';
import { plattTable } from './calibration.ts';
import {
  D_SHOUT,
  langBit,
  N_DENSE,
  N_HEADS,
  SUPPORTED_LANGUAGES,
  type SupportedLanguage,
  TEXT_CATEGORIES,
  type TextCategory,
} from './constants.ts';
import { ContextModel, type ContextWeights, inSet } from './context-model.ts';
import {
  addDenseHits,
  charGrams,
  denseCounts,
  denseValue,
  FeatureExtractor,
  MAX_GRAM_CHARS,
  MIN_NORM_FEATURES,
  N_SPAM_CUES,
  spamCues,
  TextStats,
} from './features.ts';
import { fmix } from './hash.ts';
import { alphabetLanguage, beyondAscii, detectLanguage, hasArabizi } from './language.ts';
import { Lexicon } from './lexicon.ts';
import { NeuralStage, type NeuralWeights } from './neural-stage.ts';
import { SpamFeatureExtractor } from './spam-features.ts';
import { CHUNK_SLOTS, TF_CJK, TF_EMOJI, TF_MENTION, TF_NUMBER, Tokenizer } from './tokenize.ts';
import { warmUpTexts } from './warmup.ts';
import type { Rule, Weights } from './weights.ts';

export interface Highlight {
  start: number;
  end: number;
  text: string;
}

export interface TextClassification {
  scores: Record<TextCategory, number>;
  highlights: Record<TextCategory, Highlight[]>;
  language: SupportedLanguage;
}

export const HIGHLIGHT_MIN_SCORE = 0.2;
/** Second, finer window size (tokens) used for texts longer than the main window. */
const SHORT_WINDOW = 16;
const SPAM_HEAD = TEXT_CATEGORIES.indexOf('spam');
const MAX_HIGHLIGHTS = 3;
const SUPPORTED = new Set<string>(SUPPORTED_LANGUAGES);
/** Token cache: 2^CACHE_BITS entries of ENTRY int32s, tokens of up to CACHE_MAX_CPS code points below U+10000. */
const CACHE_BITS = 16;
const ENTRY = 32;
const CACHE_MAX_CPS = MAX_GRAM_CHARS;
const NO_CHAR_GRAMS = TF_NUMBER | TF_MENTION | TF_EMOJI;
/** Per-text buffers are sized for this many UTF-16 units: the service's text limit (32 KB of UTF-8) */
const RESERVE_CHARS = 32_768;
/** one UTF-16 unit that is a combining mark (accents, vowel signs, variation selectors) */
const COMBINING_MARK = /^\p{M}$/u;

/** A record of the eight categories from values in TEXT_CATEGORIES order (an object literal: one fixed shape). */
function byCategory<T>(v: ArrayLike<T>): Record<TextCategory, T> {
  return {
    toxicity: v[0]!,
    harassment: v[1]!,
    hate: v[2]!,
    violence: v[3]!,
    sexual: v[4]!,
    self_harm: v[5]!,
    profanity: v[6]!,
    spam: v[7]!,
  };
}
if (TEXT_CATEGORIES.join() !== 'toxicity,harassment,hate,violence,sexual,self_harm,profanity,spam')
  throw new Error('byCategory does not list TEXT_CATEGORIES in order');

/**
 * Texts of at most this many tokens go to tinyld when common words do not tell their language; longer ones only when
 * they have a letter beyond ASCII: tinyld costs ~0.6 ms on 280 characters, and 4 % of English tweets have no common
 * word of any language (hashtags, names), which halved the throughput on them.
 */
const SHORT_DETECT_TOKENS = 8;
/** Whether [start, end) overlaps a highlight of `hs`. */
function overlapsAny(hs: Highlight[], start: number, end: number): boolean {
  for (const h of hs) if (start < h.end && h.start < end) return true;
  return false;
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/**
 * Shared scoring core (runtime and trainer): tokens → per-token hashed contributions → sliding windows of
 * `window` tokens → raw logits per head (max over windows).
 */
export class Scorer {
  readonly fx: FeatureExtractor;
  readonly lexicon: Lexicon;
  hashed: Float32Array;
  bias: Float64Array;
  dense: Float64Array; // [d * N_HEADS + k]
  readonly window: number;
  readonly stride: number;
  /** per token and head: sum of word-level / char n-gram feature weights */
  contribW = new Float32Array(256 * N_HEADS);
  contribC = new Float32Array(256 * N_HEADS);
  /** per token: its bigram feature's weight row (gathered before the per-token pass) */
  private bigramRow = new Float32Array(256 * N_HEADS);
  /** prefix sums over tokens of the word-level and char n-gram sums (window sums in O(heads)) */
  private preW = new Float64Array(257 * N_HEADS);
  private preC = new Float64Array(257 * N_HEADS);
  /**
   * Token cache, direct-mapped, one 128-byte entry per slot (two adjacent cache lines; one random memory access
   * instead of ~20 for a token's char n-grams and unigram): int32 [0] tag (1 | length << 1 | cjk << 6), [1..10] the
   * token's code points packed two per int, [11] language seed; float32 [16..23] char n-gram sum, [24..31] unigram
   * row.
   * Entries are verified against the token's code points, so a hit returns exactly what recomputing would.
   */
  private readonly cacheI = new Int32Array(ENTRY << CACHE_BITS);
  private readonly cacheF = new Float32Array(this.cacheI.buffer);
  /**
   * Per chunk cache entry of the tokenizer: the char n-gram sum (floats 0-7) and unigram row (8-15) of the entry's
   * token, valid while chunkSer[entry] equals the serial number the tokenizer gave the token's chunk (Tokenizer.tSerial).
   * Cheaper than the token cache for the common words: no hashing and no code point comparison.
   */
  private readonly chunkPay = new Float32Array(CHUNK_SLOTS << 4);
  private readonly chunkSer = new Int32Array(CHUNK_SLOTS);
  private serialEpoch = 0;
  private readonly gramBuf = new Int32Array(4 * (MAX_GRAM_CHARS + 2));
  private flagged = new Int32Array(64);
  private nFlagged = 0;
  readonly z = new Float64Array(N_HEADS);
  readonly bestStart = new Int32Array(N_HEADS);
  readonly bestEnd = new Int32Array(N_HEADS);
  /** feature normalisers of each head's best window: word group, char group */
  readonly bestNormW = new Float64Array(N_HEADS);
  readonly bestNormC = new Float64Array(N_HEADS);
  private normW = 0;
  readonly anyFlags = { value: 0 };
  private readonly dc = new Float64Array(N_DENSE);
  readonly acc = new Float64Array(N_HEADS);
  /** weights of the text-level spam cues (spam head only; absent in older weights files) */
  readonly cueW: Float64Array | null;
  readonly cues = new Float64Array(N_SPAM_CUES);
  private readonly stats = new TextStats();
  /** the spam cues' contribution to the spam logit of the current text (same for every window) */
  private cueLogit = 0;
  /** dedicated spam model (absent in older weights files): features, weights, bias, cue weights */
  private readonly spamFx: SpamFeatureExtractor | null;
  private readonly spamW: Float32Array | null;
  private readonly spamBias: number;
  private readonly spamCueW: Float64Array | null;
  /** the dedicated spam model's logit of the current text */
  spamLogit = 0;

  constructor(w: Weights) {
    const h = w.header;
    this.lexicon = new Lexicon(h.lexicon);
    this.fx = new FeatureExtractor(new Tokenizer(this.lexicon), this.lexicon, h.bits);
    this.fx.emitCharGrams = false;
    this.reserve(RESERVE_CHARS);
    this.hashed = w.hashed;
    this.bias = Float64Array.from(h.bias);
    this.dense = new Float64Array(N_DENSE * N_HEADS);
    for (let d = 0; d < N_DENSE; d++)
      for (let k = 0; k < N_HEADS; k++) this.dense[d * N_HEADS + k] = h.dense[d]![k]!;
    this.window = h.window;
    this.stride = h.stride;
    this.cueW = h.spamCues ? Float64Array.from(h.spamCues) : null;
    const sm = h.spamModel;
    this.spamFx = sm && w.spamHashed ? new SpamFeatureExtractor(sm.bits, sm.charGrams) : null;
    this.spamW = sm && w.spamHashed ? w.spamHashed : null;
    this.spamBias = sm ? sm.bias : 0;
    this.spamCueW = sm ? Float64Array.from(sm.cues) : null;
  }

  /**
   * Sizes every per-text buffer for texts of up to `chars` UTF-16 units (a text has at most one token per unit), so
   * that texts up to the service's limit never reallocate one: a reallocated buffer field de-optimises the compiled
   * scoring code (the first long texts after start then took 10–25 ms instead of ~5). Longer texts (the trainer's
   * e-mails) grow the buffers here, before scoring.
   */
  reserve(chars: number): void {
    this.fx.reserve(chars);
    if (this.contribW.length < (chars + 1) * N_HEADS) {
      this.contribW = new Float32Array((chars + 1) * N_HEADS);
      this.contribC = new Float32Array((chars + 1) * N_HEADS);
      this.bigramRow = new Float32Array((chars + 1) * N_HEADS);
    }
    if (this.preW.length < (chars + 2) * N_HEADS) {
      this.preW = new Float64Array((chars + 2) * N_HEADS);
      this.preC = new Float64Array((chars + 2) * N_HEADS);
    }
    if (this.flagged.length < chars + 1) this.flagged = new Int32Array(chars + 1);
    if (this.denseCum.length < (chars + 2) * N_DENSE) this.denseCum = new Int32Array((chars + 2) * N_DENSE);
  }

  /** Empties the token and chunk caches (results never depend on them; only speed does). */
  clearCaches(): void {
    this.cacheI.fill(0);
    this.chunkSer.fill(0);
    this.fx.tok.clearCache();
  }

  /** Runs tokenization + features and fills `z` with the max-over-windows logit per head. */
  score(text: string, lang: SupportedLanguage): number {
    const fx = this.fx;
    this.reserve(text.length); // no-op up to the service's limit (sized at load)
    const spam = this.cueW !== null || this.spamFx !== null;
    // the spam cues' scan also counts what the rule scans need (for texts of up to 1,000 characters)
    if (spam) spamCues(text, this.cues, this.stats);
    const n = fx.run(text, lang, langBit(lang), spam ? this.stats : null);
    const preW = this.preW;
    const preC = this.preC;
    let any = 0;
    for (let k = 0; k < N_HEADS; k++) {
      preW[k] = 0;
      preC[k] = 0;
    }
    // running prefix sums per head, kept in locals (the same additions as preW[o + 8 + k] = preW[o + k] + …)
    let w0 = 0;
    let w1 = 0;
    let w2 = 0;
    let w3 = 0;
    let w4 = 0;
    let w5 = 0;
    let w6 = 0;
    let w7 = 0;
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let c3 = 0;
    let c4 = 0;
    let c5 = 0;
    let c6 = 0;
    let c7 = 0;
    const cW = this.contribW;
    const cC = this.contribC;
    if (fx.tok.serialEpoch !== this.serialEpoch) {
      // the tokenizer's serial numbers restarted: entries tagged with old ones could match new ones
      this.chunkSer.fill(0);
      this.serialEpoch = fx.tok.serialEpoch;
    }
    this.gatherBigrams(n);
    for (let t = 0; t < n; t++) {
      const o = t * 8;
      this.tokenContrib(t, o);
      preW[o + 8] = w0 += cW[o]!;
      preW[o + 9] = w1 += cW[o + 1]!;
      preW[o + 10] = w2 += cW[o + 2]!;
      preW[o + 11] = w3 += cW[o + 3]!;
      preW[o + 12] = w4 += cW[o + 4]!;
      preW[o + 13] = w5 += cW[o + 5]!;
      preW[o + 14] = w6 += cW[o + 6]!;
      preW[o + 15] = w7 += cW[o + 7]!;
      preC[o + 8] = c0 += cC[o]!;
      preC[o + 9] = c1 += cC[o + 1]!;
      preC[o + 10] = c2 += cC[o + 2]!;
      preC[o + 11] = c3 += cC[o + 3]!;
      preC[o + 12] = c4 += cC[o + 4]!;
      preC[o + 13] = c5 += cC[o + 5]!;
      preC[o + 14] = c6 += cC[o + 6]!;
      preC[o + 15] = c7 += cC[o + 7]!;
      any |= fx.tokFlags[t]!;
    }
    this.anyFlags.value = any;
    let nf = 0;
    if (any !== 0) {
      for (let t = 0; t < n; t++) {
        if (fx.tokFlags[t] !== 0) this.flagged[nf++] = t;
      }
    }
    this.nFlagged = nf;
    const cum = this.denseCum;
    cum.fill(0, 0, N_DENSE);
    for (let i = 0; i < nf; i++) {
      const o = (i + 1) * N_DENSE;
      for (let d = 0; d < N_DENSE; d++) cum[o + d] = cum[o - N_DENSE + d]!;
      addDenseHits(fx.tokFlags[this.flagged[i]!]!, cum, o);
    }
    this.flagLo = 0;
    this.flagHi = 0;
    this.cueLogit = 0;
    this.spamLogit = 0;
    if (spam && n > 0) {
      if (this.cueW !== null)
        for (let i = 0; i < N_SPAM_CUES; i++) this.cueLogit += this.cues[i]! * this.cueW[i]!;
      if (this.spamFx !== null) {
        const sfx = this.spamFx;
        const m = sfx.run(text);
        const W = this.spamW!;
        let v = this.spamBias;
        for (let j = 0; j < m; j++) v += W[sfx.idx[j]!]! * sfx.val[j]!;
        const cw = this.spamCueW!;
        for (let i = 0; i < N_SPAM_CUES; i++) v += this.cues[i]! * cw[i]!;
        this.spamLogit = v;
        this.cueLogit += v;
      }
    }
    const z = this.z;
    z.fill(Number.NEGATIVE_INFINITY);
    this.scanWindows(n, this.window, this.stride);
    // Long texts are also scanned with short windows, so one insult in a long benign text is judged about as it
    // would be on its own instead of being diluted by the 1/sqrt(count) normalisation.
    // Not for spam: spam is a property of the whole message (e-mail bodies are long and mostly benign text).
    if (n > this.window) this.scanWindows(n, SHORT_WINDOW, SHORT_WINDOW / 2, SPAM_HEAD);
    return n;
  }

  /**
   * Copies every token's bigram weight row into bigramRow (t * 8): random reads of the 8 MB weight matrix with nothing
   * depending on each other, so the CPU overlaps their cache misses instead of waiting for each token's in turn.
   */
  private gatherBigrams(n: number): void {
    const W = this.hashed;
    const idx = this.fx.idx;
    const starts = this.fx.tokFeatStart;
    const g = this.bigramRow;
    for (let t = 0; t < n; t++) {
      const b = idx[starts[t]! + 1]! << 3;
      const o = t << 3;
      g[o] = W[b]!;
      g[o + 1] = W[b + 1]!;
      g[o + 2] = W[b + 2]!;
      g[o + 3] = W[b + 3]!;
      g[o + 4] = W[b + 4]!;
      g[o + 5] = W[b + 5]!;
      g[o + 6] = W[b + 6]!;
      g[o + 7] = W[b + 7]!;
    }
  }

  private scanWindows(n: number, win: number, stride: number, skipHead = -1): void {
    const z = this.z;
    let a = 0;
    for (;;) {
      const b = Math.min(n, a + win);
      const normC = this.windowLogits(a, b);
      for (let k = 0; k < N_HEADS; k++) {
        if (k !== skipHead && this.acc[k]! > z[k]!) {
          z[k] = this.acc[k]!;
          this.bestStart[k] = a;
          this.bestEnd[k] = b;
          this.bestNormC[k] = normC;
          this.bestNormW[k] = this.normW;
        }
      }
      if (b >= n) break;
      a += stride;
    }
  }

  /**
   * Token t's word-level sum into contribW[o:o+8] and char n-gram sum into contribC[o:o+8]. Tokens made from a cached
   * ASCII chunk take their unigram weight row and char n-gram sum from chunkPay, other tokens of up to CACHE_MAX_CPS
   * code points from the token cache; the sums are computed in the same order either way, so a hit gives
   * bit-identical results.
   */
  private tokenContrib(t: number, o: number): void {
    const fx = this.fx;
    const tok = fx.tok;
    const idx = fx.idx;
    const from = fx.tokFeatStart[t]!;
    const to = fx.tokFeatStart[t + 1]!;
    // A token made from a cached ASCII chunk: its sums are kept per chunk cache entry, tagged with the chunk's serial.
    const serial = tok.tSerial[t]!;
    if (serial !== 0) {
      const slot = tok.tSlot[t]!;
      const p = slot << 4;
      const pay = this.chunkPay;
      if (this.chunkSer[slot] === serial) {
        this.useSums(pay, p, idx, from, to, o);
        return;
      }
      this.tokenContribUncached(t, o, from, to);
      this.keepSums(pay, p, idx[from]!, o);
      this.chunkSer[slot] = serial;
      return;
    }
    this.tokenContribUncached(t, o, from, to);
  }

  /** tokenContrib of a token without chunk cache data: from the token cache, or computed. */
  private tokenContribUncached(t: number, o: number, from: number, to: number): void {
    const fx = this.fx;
    const tok = fx.tok;
    const idx = fx.idx;
    const f = tok.tFlag[t]!;
    if ((f & NO_CHAR_GRAMS) !== 0) {
      this.accumulate(idx, from, to, this.contribW, o);
      this.contribC.fill(0, o, o + 8);
      return;
    }
    const cps = tok.cps;
    const s = tok.tS[t]!;
    const len = tok.tE[t]! - s;
    const cjk = (f & TF_CJK) !== 0;
    const seed = fx.langSeed;
    if (len > CACHE_MAX_CPS) {
      this.accumulate(idx, from, to, this.contribW, o);
      this.charSum(cps, s, Math.min(len, MAX_GRAM_CHARS), cjk, seed, o);
      return;
    }
    const ci = this.cacheI;
    const cf = this.cacheF;
    const e = ((fmix(tok.tH[t]! ^ seed) >>> 0) & ((1 << CACHE_BITS) - 1)) * ENTRY;
    const tag = 1 | (len << 1) | (cjk ? 64 : 0);
    let hit = ci[e] === tag && ci[e + 11] === seed;
    for (let i = 0, j = e + 1; hit && i < len; i += 2, j++) {
      const lo = cps[s + i]!;
      const hi = i + 1 < len ? cps[s + i + 1]! : 0;
      if (lo > 0xffff || hi > 0xffff || ci[j] !== (lo | (hi << 16))) hit = false;
    }
    if (hit) {
      this.useSums(cf, e + 16, idx, from, to, o);
      return;
    }
    this.accumulate(idx, from, to, this.contribW, o);
    this.charSum(cps, s, len, cjk, seed, o);
    for (let i = 0; i < len; i++) if (cps[s + i]! > 0xffff) return;
    ci[e] = tag;
    ci[e + 11] = seed;
    for (let i = 0, j = e + 1; i < len; i += 2, j++)
      ci[j] = cps[s + i]! | (i + 1 < len ? cps[s + i + 1]! << 16 : 0);
    this.keepSums(cf, e + 16, idx[from]!, o);
  }

  /**
   * Token o/8's sums from a cache (chunkPay or the token cache), which keeps a token's char n-gram sum at
   * src[p:p+8] and its unigram row at src[p+8:p+16]: the char sum as it is, the word-level sum from the unigram row.
   */
  private useSums(src: Float32Array, p: number, idx: Int32Array, from: number, to: number, o: number): void {
    this.hitRow(src, p + 8, idx, from + 2, to, o);
    const c = this.contribC;
    for (let k = 0; k < 8; k++) c[o + k] = src[p + k]!;
  }

  /** Keeps token o/8's char n-gram sum and its unigram row (feature `unigram`) at dst[p:p+16] (see useSums). */
  private keepSums(dst: Float32Array, p: number, unigram: number, o: number): void {
    const W = this.hashed;
    const u = unigram << 3;
    const c = this.contribC;
    for (let k = 0; k < 8; k++) {
      dst[p + k] = c[o + k]!;
      dst[p + 8 + k] = W[u + k]!;
    }
  }

  /** Sum of the char n-gram weights of the token cps[s, s+m) into contribC[o:o+8]. */
  private charSum(cps: Int32Array, s: number, m: number, cjk: boolean, seed: number, o: number): void {
    const g = charGrams(cps, s, m, cjk, seed, this.fx.shift, this.gramBuf, 0);
    this.accumulate(this.gramBuf, 0, g, this.contribC, o);
  }

  /**
   * Token o/8's word-level sum from its cached unigram row base[bo:bo+8], its gathered bigram row and the weights of
   * idx[from:to) (its other word-level features), added in the order accumulate would add them. The hot path of
   * every cached token: kept apart from accumulate (one function for both, with two base rows, measured 3–12 %
   * slower).
   */
  private hitRow(base: Float32Array, bo: number, idx: Int32Array, from: number, to: number, o: number): void {
    const W = this.hashed;
    const g = this.bigramRow;
    let c0: number = base[bo]! + g[o]!;
    let c1: number = base[bo + 1]! + g[o + 1]!;
    let c2: number = base[bo + 2]! + g[o + 2]!;
    let c3: number = base[bo + 3]! + g[o + 3]!;
    let c4: number = base[bo + 4]! + g[o + 4]!;
    let c5: number = base[bo + 5]! + g[o + 5]!;
    let c6: number = base[bo + 6]! + g[o + 6]!;
    let c7: number = base[bo + 7]! + g[o + 7]!;
    for (let i = from; i < to; i++) {
      const b = idx[i]! << 3;
      c0 += W[b]!;
      c1 += W[b + 1]!;
      c2 += W[b + 2]!;
      c3 += W[b + 3]!;
      c4 += W[b + 4]!;
      c5 += W[b + 5]!;
      c6 += W[b + 6]!;
      c7 += W[b + 7]!;
    }
    const out = this.contribW;
    out[o] = c0;
    out[o + 1] = c1;
    out[o + 2] = c2;
    out[o + 3] = c3;
    out[o + 4] = c4;
    out[o + 5] = c5;
    out[o + 6] = c6;
    out[o + 7] = c7;
  }

  /** Adds the weights of features idx[from:to) for all 8 heads into out[o:o+8]. */
  private accumulate(idx: Int32Array, from: number, to: number, out: Float32Array, o: number): void {
    const W = this.hashed;
    let c0 = 0;
    let c1 = 0;
    let c2 = 0;
    let c3 = 0;
    let c4 = 0;
    let c5 = 0;
    let c6 = 0;
    let c7 = 0;
    for (let i = from; i < to; i++) {
      const b = idx[i]! << 3;
      c0 += W[b]!;
      c1 += W[b + 1]!;
      c2 += W[b + 2]!;
      c3 += W[b + 3]!;
      c4 += W[b + 4]!;
      c5 += W[b + 5]!;
      c6 += W[b + 6]!;
      c7 += W[b + 7]!;
    }
    out[o] = c0;
    out[o + 1] = c1;
    out[o + 2] = c2;
    out[o + 3] = c3;
    out[o + 4] = c4;
    out[o + 5] = c5;
    out[o + 6] = c6;
    out[o + 7] = c7;
  }

  /**
   * Dense-feature values of the window [a, b) into `dc`, from the running hit counts over flagged tokens (the same
   * counts denseCounts would make over the window's tokens).
   */
  private denseWindow(a: number, b: number): void {
    const dc = this.dc;
    const shout = this.fx.shout;
    const nf = this.nFlagged;
    const flagged = this.flagged;
    // first flagged token at or after a, and at or after b, moved from the previous window's (windows advance, and the
    // short-window scan starts again from the first)
    let lo = this.flagLo;
    while (lo > 0 && flagged[lo - 1]! >= a) lo--;
    while (lo < nf && flagged[lo]! < a) lo++;
    let hi = Math.max(lo, this.flagHi);
    while (hi > lo && flagged[hi - 1]! >= b) hi--;
    while (hi < nf && flagged[hi]! < b) hi++;
    this.flagLo = lo;
    this.flagHi = hi;
    if (hi === lo) {
      dc.fill(0);
    } else {
      const cum = this.denseCum;
      for (let d = 0; d < N_DENSE; d++) dc[d] = denseValue(cum[hi * N_DENSE + d]! - cum[lo * N_DENSE + d]!);
    }
    dc[D_SHOUT] = shout;
  }

  /** running dense-feature hit counts: denseCum[i * N_DENSE + d] = hits of feature d in flagged tokens before i */
  private denseCum = new Int32Array(64 * N_DENSE);
  private flagLo = 0;
  private flagHi = 0;

  /**
   * windowLogits without its return value, for the second stage: a double returned from a call that is not inlined
   * is boxed, and a 32 KB text has ~1,000 windows (17 KB of garbage per text).
   */
  windowAcc(a: number, b: number): void {
    this.windowLogits(a, b);
  }

  /**
   * Logits of the window of tokens [a, b) into `acc`, with features scaled by 1/sqrt(count).
   * Returns the char-group normaliser (the word one is left in `normW`; currently the same).
   */
  windowLogits(a: number, b: number): number {
    const fx = this.fx;
    const acc = this.acc;
    const nf = fx.featPre[b]! - fx.featPre[a]!;
    // One normaliser for both groups: separate ones were tried and lost accuracy on validation.
    const norm = 1 / Math.sqrt(Math.max(nf, MIN_NORM_FEATURES));
    const normW = norm;
    this.normW = normW;
    const preW = this.preW;
    const preC = this.preC;
    for (let k = 0; k < N_HEADS; k++) {
      acc[k] = (preC[b * 8 + k]! - preC[a * 8 + k]!) * norm + (preW[b * 8 + k]! - preW[a * 8 + k]!) * normW;
    }
    this.denseWindow(a, b);
    const bias = this.bias;
    for (let k = 0; k < N_HEADS; k++) acc[k] = bias[k]! + acc[k]!;
    // dense features in ascending order, each added to every head: per head, the same additions in the same order
    // as a loop over heads then features (most windows have no dense feature at all)
    const dc = this.dc;
    const dense = this.dense;
    for (let d = 0; d < N_DENSE; d++) {
      const x = dc[d]!;
      if (x === 0) continue;
      const o = d * N_HEADS;
      for (let k = 0; k < N_HEADS; k++) acc[k]! += x * dense[o + k]!;
    }
    acc[SPAM_HEAD]! += this.cueLogit;
    return norm;
  }
}

export interface ClassifyOptions {
  /** The text's language; default `en`. `auto`: detected. */
  language?: SupportedLanguage | 'auto';
  /**
   * Whether the caller declared `language` (default true). An undeclared language is only a default: a text with
   * none of its common words but some of another language's is scored in that language alone ("bonjour à tous"
   * sent without `language`). A declared one is kept, and such a text is scored in both, each category keeping the
   * higher probability.
   */
  declared?: boolean;
}

export interface TextModel {
  readonly version: string;
  classify(text: string, options?: ClassifyOptions): TextClassification;
  /**
   * Classifies generated texts once so that the JIT compiles the classifier's code paths before real texts arrive
   * (the first 32 KB texts of a cold process took 20–180 ms instead of a few), then empties the caches it filled.
   * Returns the milliseconds spent (about half a second).
   */
  warmUp?(): number;
}

/** The bundled classifier: Scorer + Platt calibration + documented rule floors + highlights. */
export class LocalTextModel implements TextModel {
  readonly version: string;
  private readonly scorer: Scorer;
  private readonly platt: Float64Array;
  /** calibration per language (SUPPORTED_LANGUAGES index) */
  private readonly plattLang: Float64Array[];
  private readonly rules: Rule[];
  /** spam calibration for texts of at most spamShortMax chars (-1: none; platt[spam] is used for all) */
  private readonly spamShortMax: number;
  private readonly spamShort: Float64Array;
  private readonly tokScore = new Float64Array(MAX_HIGHLIGHTS);
  private readonly probs = new Float64Array(N_HEADS);
  private readonly hls: Highlight[][] = TEXT_CATEGORIES.map(() => []);
  private readonly tokIdx = new Int32Array(MAX_HIGHLIGHTS);

  /** the second stage (absent with first-stage-only weights) */
  private readonly ctx: ContextModel | null;
  /** the third stage (absent without its weights; never without the second stage's) */
  private readonly nn: NeuralStage | null;
  /** texts classified, and how many of them went to the second stage and to the third (for the bench) */
  readonly stageCounts = { texts: 0, secondStage: 0, thirdStage: 0 };

  constructor(
    weights: Weights,
    fileBytes: Uint8Array,
    context?: { weights: ContextWeights; bytes: Uint8Array },
    neural?: { weights: NeuralWeights; bytes: Uint8Array },
  ) {
    this.scorer = new Scorer(weights);
    this.ctx = context ? new ContextModel(context.weights) : null;
    if (neural && !context) throw new Error('the third stage (neural-model.bin) needs the second stage');
    this.nn = neural ? new NeuralStage(neural.weights) : null;
    this.platt = Float64Array.from(weights.header.platt.flat());
    this.plattLang = plattTable(weights.header.platt, weights.header.plattByLang);
    const sp = weights.header.spamPlatt;
    this.spamShortMax = sp ? sp.shortMaxChars : -1;
    this.spamShort = sp ? Float64Array.from(sp.short) : this.platt.subarray(2 * SPAM_HEAD, 2 * SPAM_HEAD + 2);
    this.rules = weights.header.rules;
    const sha = createHash('sha256').update(fileBytes);
    if (context) sha.update(context.bytes);
    if (neural) sha.update(neural.bytes);
    const hash = sha.digest('hex').slice(0, 10);
    this.version = `${weights.header.modelVersion}+${hash}`;
  }

  warmUp(): number {
    const start = performance.now();
    // the language detector is loaded on first use (~110 ms): load it now, not on a request
    if (this.ctx !== null) detectLanguage('warm up the language detector');
    const texts = warmUpTexts();
    texts.forEach((text, i) => {
      this.classify(text, { language: SUPPORTED_LANGUAGES[i % SUPPORTED_LANGUAGES.length]! });
      this.classify(text, { language: 'en' });
    });
    this.scorer.clearCaches();
    return performance.now() - start;
  }

  classify(text: string, options?: ClassifyOptions): TextClassification {
    const requested = options?.language ?? 'en';
    let language: SupportedLanguage;
    if (requested === 'auto') language = detectLanguage(text) ?? 'en';
    else language = SUPPORTED.has(requested) ? requested : 'en';
    const n = this.run(text, language);
    // Languages are not a gate: a text that does not read as its declared language (more of another language's
    // common words than of its own, or none of any) is also scored in the language guessed from common words, or
    // else detected by tinyld (or in Arabic, when a word is Arabic in Latin letters: "3arfa", "7mar"), and each
    // category keeps the higher of the two probabilities. Texts that read as their declared language never pay for
    // detection, nor do texts of one or two ASCII words ("kys", "assessment"), whose detected language is a guess:
    // those are also scored in another language only when its common words (or Arabic in Latin letters) say so
    // ("Voglio morire", "Ga dood"). When `language` was only the default and common words name another language, a
    // text of three words or more is scored in that one alone: scored as English, a French greeting read violence
    // 0.90 ("bonjour à tous"). On the team's calibration split sent without `language`
    // (training/experiments/README.md), a German text with one English-looking word ("ich's") read as English,
    // Russian "не" was mapped to "he", and long texts with no common words (Spanish has few of its own: "de", "la",
    // "en" are shared) were never detected: fixing those moved de 80.8 -> 83.4 %, cs 84.6 -> 87.0,
    // nl 83.8 -> 86.4, es 83.5 -> 85.0, ar 82.0 -> 84.9, ru 80.8 -> 82.8, English unchanged. A letter only one of
    // the languages uses (ı ş ğ, ł ą ę, ř ě ů, ñ, ã õ, ß, œ, å) outweighs a guess resting on one common word
    // (Turkish "son" is a Spanish common word): tr 81.8 -> 82.5, cs 87.0 -> 87.5.
    const ctx = this.ctx;
    if (
      requested !== 'auto' &&
      ctx !== null &&
      !ctx.readsAs(SUPPORTED_LANGUAGES.indexOf(language), this.scorer.fx.tok.tH, n)
    ) {
      const short = n < 3 && !beyondAscii(text);
      let other: SupportedLanguage | null;
      let alone = false;
      if (language !== 'ar' && hasArabizi(text)) other = 'ar';
      else {
        const alphabet = !short && ctx.guessedCount < 2 ? alphabetLanguage(text) : null;
        if (alphabet !== null && alphabet !== ctx.guessed) other = alphabet;
        else if (ctx.guessed !== null) {
          other = ctx.guessed;
          alone = !short && options?.declared === false;
        } else
          other = !short && (n <= SHORT_DETECT_TOKENS || beyondAscii(text)) ? detectLanguage(text) : null;
      }
      if (other !== null && other !== language) {
        if (alone) {
          this.run(text, other);
          language = other;
        } else if (this.keepHigher(text, other)) language = other;
      }
    }
    return { scores: byCategory(this.probs), highlights: byCategory(this.hls), language };
  }

  /**
   * Scores the text in `other` too, each category keeping the higher probability (and its highlights); whether a
   * category crossed 0.5 only in `other`.
   */
  private keepHigher(text: string, other: SupportedLanguage): boolean {
    const first = Float64Array.from(this.probs);
    const firstHls = [...this.hls];
    this.run(text, other);
    let moved = false;
    for (let k = 0; k < N_HEADS; k++) {
      if (first[k]! >= this.probs[k]!) {
        this.probs[k] = first[k]!;
        this.hls[k] = firstHls[k]!;
      } else if (first[k]! < 0.5 && this.probs[k]! >= 0.5) moved = true;
    }
    return moved;
  }

  /** Scores the text in `language` into probs and hls; returns the token count. */
  private run(text: string, language: SupportedLanguage): number {
    const s = this.scorer;
    const n = s.score(text, language);
    const li = SUPPORTED_LANGUAGES.indexOf(language);
    const gated = n > 0 && this.secondStage(n, li);
    this.stageCounts.texts++;
    const ctx = this.ctx;
    const nn = this.nn;
    let z = s.z;
    let platt = this.plattLang[li]!;
    if (gated) {
      this.stageCounts.secondStage++;
      z = ctx!.z;
      platt = ctx!.plattLang[li]!;
      if (nn?.reaches(ctx!.z, platt)) {
        // the third stage adds its logit to each head's best window and brings its own calibration
        this.stageCounts.thirdStage++;
        nn.apply(s.fx.tok.tH, s.fx.tokFlags, ctx!.z, ctx!.bestStart, ctx!.bestEnd, li);
        z = nn.z;
        platt = nn.plattLang[li]!;
      }
    }
    const probs = this.probs;
    const hls = this.hls;
    const any = s.anyFlags.value;
    const lb = langBit(language);
    for (let k = 0; k < N_HEADS; k++) {
      let a = platt[2 * k]!;
      let b = platt[2 * k + 1]!;
      if (k === SPAM_HEAD) {
        const short = text.length <= this.spamShortMax;
        a = short ? this.spamShort[0]! : this.platt[2 * k]!;
        b = short ? this.spamShort[1]! : this.platt[2 * k + 1]!;
      }
      // no tokens (empty, whitespace or punctuation only): nothing to judge
      let p = n === 0 ? 0 : sigmoid(a * z[k]! + b);
      for (const r of this.rules) {
        if (r.head === k && (any & r.flag) === r.flag && (r.langs & lb) !== 0 && r.p > p) p = r.p;
      }
      probs[k] = p;
      hls[k] = p >= HIGHLIGHT_MIN_SCORE && n > 0 ? this.highlight(text, k, gated && k !== SPAM_HEAD) : [];
    }
    return n;
  }

  /**
   * Whether the text goes to the second stage: a head other than spam is at least the gate probability after the
   * first stage, or a token is a trigger term or carries a lexicon class. Runs the second stage when it does.
   */
  private secondStage(n: number, li: number): boolean {
    const ctx = this.ctx;
    if (ctx === null) return false;
    const s = this.scorer;
    let go = false;
    for (let k = 0; k < N_HEADS && !go; k++) {
      if (k !== SPAM_HEAD && sigmoid(this.platt[2 * k]! * s.z[k]! + this.platt[2 * k + 1]!) >= ctx.gateP)
        go = true;
    }
    if (!go) go = ctx.hasTrigger(s.fx.tok.tH, s.fx.tokFlags, n);
    if (go) ctx.apply(s, s.fx.tok.tH, s.fx.tokFlags, n, SPAM_HEAD, li);
    return go;
  }

  /**
   * Top tokens of the head's best window by their contribution to its logit (both stages' for a text that went to
   * the second stage: `gated`); the most frequent words of each language (stopwords) are never highlighted.
   */
  private highlight(text: string, k: number, gated: boolean): Highlight[] {
    const s = this.scorer;
    const fx = s.fx;
    const tok = fx.tok;
    const ctx = this.ctx;
    const second = gated ? ctx : null;
    const a = second ? second.bestStart[k]! : s.bestStart[k]!;
    const b = second ? second.bestEnd[k]! : s.bestEnd[k]!;
    const norm1 = 1 / Math.sqrt(Math.max(fx.featPre[b]! - fx.featPre[a]!, MIN_NORM_FEATURES));
    const normW = second ? norm1 : s.bestNormW[k]!;
    const normC = second ? norm1 : s.bestNormC[k]!;
    const norm2 = second ? second.bestScale[k]! : 0;
    const best = this.tokScore;
    const bestIdx = this.tokIdx;
    best.fill(0);
    bestIdx.fill(-1);
    for (let t = a; t < b; t++) {
      if (ctx !== null && inSet(ctx.stopwords, tok.tH[t]!)) continue;
      let u = s.contribW[t * 8 + k]! * normW + s.contribC[t * 8 + k]! * normC;
      if (second) u += second.contrib[t * 8 + k]! * norm2;
      const f = fx.tokFlags[t]!;
      if (f !== 0) u += this.flagContribution(f, k);
      if (u <= best[MAX_HIGHLIGHTS - 1]!) continue;
      let j = MAX_HIGHLIGHTS - 1;
      while (j > 0 && u > best[j - 1]!) {
        best[j] = best[j - 1]!;
        bestIdx[j] = bestIdx[j - 1]!;
        j--;
      }
      best[j] = u;
      bestIdx[j] = t;
    }
    const out: Highlight[] = [];
    for (let j = 0; j < MAX_HIGHLIGHTS; j++) {
      const t = bestIdx[j]!;
      if (t < 0) break;
      const start = tok.oS[t]!;
      // the tokenizer drops combining marks: a span ends after those that belong to its last letter ("fucké")
      let end = fx.hlEnd[t]!;
      while (end < text.length && COMBINING_MARK.test(text[end]!)) end++;
      if (!overlapsAny(out, start, end)) out.push({ start, end, text: text.slice(start, end) });
    }
    return out;
  }

  private readonly dcTmp = new Float64Array(N_DENSE);
  private readonly flagTmp = new Int32Array(1);

  private flagContribution(f: number, k: number): number {
    this.flagTmp[0] = f;
    denseCounts(this.flagTmp, 0, 1, 0, this.dcTmp);
    let u = 0;
    for (let d = 0; d < N_DENSE; d++) {
      const x = this.dcTmp[d]!;
      if (x !== 0) u += x * this.scorer.dense[d * N_HEADS + k]!;
    }
    return u;
  }
}

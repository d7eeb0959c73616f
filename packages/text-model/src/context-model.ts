/**
 * Second stage: a context model applied only to texts the first stage is unsure about or that contain a trigger
 * term, so the common benign text stays on the fast path.
 *
 * The first stage sees words, bigrams and char n-grams one at a time, hashed per language. This stage sees how words
 * combine: adjacent pairs, pairs one and two words apart, trigrams, and a lexicon class (violence, slur, insult, …)
 * next to the words around it ("kill … you" vs "killed it", "not … disgusting", "is racist"). Its features hash the
 * normalised token, never the language, so a threat in Spanish sent without `language` is still recognised. Its
 * logit is added to the first stage's, window by window, and gated texts get their own calibration.
 */

import { plattTable } from './calibration.ts';
import { LEX, N_HEADS, SUPPORTED_LANGUAGES, type SupportedLanguage, TEXT_CATEGORIES } from './constants.ts';
import { fmix } from './hash.ts';
import { decodeHeader, encodeFile, readHalves } from './weights.ts';

if (TEXT_CATEGORIES.indexOf('spam') !== 7 || N_HEADS !== 8)
  throw new Error('context model: contributions() assumes 8 heads with spam last');

/** Window sizes of the first stage (long texts are scanned with both). */
const SHORT_WINDOW = 16;

/** Lexicon flags that are a token class for the context features (not spam cues or decode-only entries). */
export const CLASS_MASK =
  LEX.PROF_MILD |
  LEX.PROF_STRONG |
  LEX.PROF_SEVERE |
  LEX.SLUR |
  LEX.SEXUAL |
  LEX.SEXUAL_EXPLICIT |
  LEX.SELF_HARM |
  LEX.VIOLENCE |
  LEX.INSULT;

const S_UNI = 0x3a8f05c5;
const S_BI = 0x7b1d2e93;
const S_SKIP2 = 0x1f83d9ab;
const S_SKIP3 = 0x5be0cd19;
const S_TRI = 0x6a09e667;
const S_CLS_NEXT = 0x510e527f;
const S_CLS_PREV = 0x9b05688c;
const S_CLS_NEXT2 = 0x1f83d9ac;
const K = 0x9e3779b1 | 0;

/** Most features one token can have (see contextFeatures). */
export const MAX_CONTEXT_FEATURES = 8;
/**
 * Feature counts below this are treated as this many (16 in the first stage): with 16, a one-word text ("kys", a
 * slur) had its evidence quartered against the bias learned on gated texts.
 */
export const MIN_NORM = 4;

/**
 * The context features of token t (bucket indices, `shift` = 32 - bits) into out[w..]; returns the new w. A function
 * of the token hashes and lexicon classes of tokens t..t+2 (and t-1): the trainer and the runtime share it.
 */
export function contextFeatures(
  tH: Int32Array,
  flags: Int32Array,
  n: number,
  t: number,
  shift: number,
  out: Int32Array,
  w0: number,
): number {
  let w = w0;
  const h = tH[t]!;
  out[w++] = fmix(h ^ S_UNI) >>> shift;
  const cls = flags[t]! & CLASS_MASK;
  if (t + 1 < n) {
    const h1 = tH[t + 1]!;
    const hk = Math.imul(h, K);
    out[w++] = fmix(hk ^ h1 ^ S_BI) >>> shift;
    if (t + 2 < n) {
      const h2 = tH[t + 2]!;
      out[w++] = fmix(hk ^ h2 ^ S_SKIP2) >>> shift;
      out[w++] = fmix(Math.imul(hk ^ h1, K) ^ h2 ^ S_TRI) >>> shift;
      if (t + 3 < n) out[w++] = fmix(hk ^ tH[t + 3]! ^ S_SKIP3) >>> shift;
      if (cls !== 0) out[w++] = fmix(Math.imul(cls, K) ^ h2 ^ S_CLS_NEXT2) >>> shift;
    }
    if (cls !== 0) out[w++] = fmix(Math.imul(cls, K) ^ h1 ^ S_CLS_NEXT) >>> shift;
  }
  if (cls !== 0 && t > 0) out[w++] = fmix(Math.imul(tH[t - 1]!, K) ^ cls ^ S_CLS_PREV) >>> shift;
  return w;
}

export interface ContextHeader {
  format: 1;
  bits: number;
  /** per head (TEXT_CATEGORIES order; spam's entries are unused) */
  bias: number[];
  /**
   * How much of this stage's logit z2 a gated text gets, per language and head: z = z1 + mix * z2. 1 unless a
   * labelled dataset of that language and category showed, on its calibration split, that less does better (real
   * posts of en, de, tr, ar); see training/context-trainer.ts.
   */
  mixByLang?: Partial<Record<string, number[]>>;
  /** calibration of gated texts: p = sigmoid(a * (z1 + mix * z2) + b) per head (spam keeps the first stage's) */
  platt: [number, number][];
  /** per-language calibration of gated texts (every head), where a language had enough calibration texts */
  plattByLang?: Partial<Record<string, [number, number][]>>;
  /** a text whose first-stage probability reaches this for a head other than spam goes to the second stage */
  gateP: number;
  /** token hashes (normalised token, any language) that send a text to the second stage */
  triggers: number[];
  /** token hashes that are never highlighted (the most frequent words of each language) */
  stopwords: number[];
  /** per language: words common in it alone (a text with none of them may be in another language) */
  commonWords?: Partial<Record<string, number[]>>;
  training: Record<string, unknown>;
}

export interface ContextWeights {
  header: ContextHeader;
  /** layout [bucket * N_HEADS + head] */
  hashed: Float32Array;
}

const MAGIC = 0x324d5456; // "VTM2"

export function encodeContextWeights(w: ContextWeights): Uint8Array {
  return encodeFile(MAGIC, w.header, [w.hashed]);
}

export function decodeContextWeights(buf: Uint8Array): ContextWeights {
  const { header, off } = decodeHeader<ContextHeader>(buf, MAGIC, 'context-model weights');
  const n = (1 << header.bits) * N_HEADS;
  if (buf.byteLength < off + n * 2) throw new Error('context-model weights file is truncated');
  return { header, hashed: readHalves(buf, off, n) };
}

/** What the context model needs of the first stage (src/model.ts Scorer). */
export interface FirstStage {
  readonly z: Float64Array;
  readonly acc: Float64Array;
  readonly window: number;
  readonly stride: number;
  /** the first stage's logits of the window [a, b) into `acc` */
  windowAcc(a: number, b: number): void;
}

/** Bit set over token hashes (2^20 bits, 128 KB): one read per token for the trigger test. */
const SET_BITS = 20;

export function hashSet(hashes: readonly number[]): Uint32Array {
  const bits = new Uint32Array(1 << (SET_BITS - 5));
  for (const h of hashes) {
    const i = fmix(h ^ 0x2545f491) >>> (32 - SET_BITS);
    bits[i >>> 5]! |= 1 << (i & 31);
  }
  return bits;
}

export function inSet(bits: Uint32Array, h: number): boolean {
  const i = fmix(h ^ 0x2545f491) >>> (32 - SET_BITS);
  return (bits[i >>> 5]! & (1 << (i & 31))) !== 0;
}

export class ContextModel {
  readonly shift: number;
  readonly hashed: Float32Array;
  readonly bias: Float64Array;
  /** calibration of gated texts per language (SUPPORTED_LANGUAGES index), flat [a, b] per head */
  readonly plattLang: Float64Array[];
  /** per language (SUPPORTED_LANGUAGES index): the share of z2 per head */
  readonly mixLang: Float64Array[];
  private mix: Float64Array;
  readonly gateP: number;
  readonly triggers: Uint32Array;
  readonly stopwords: Uint32Array;
  /** every language's common words (a bit set, for a cheap first test) and the language index of each */
  private readonly commonAny: Uint32Array;
  private readonly commonLang = new Map<number, number>();
  /** per language (SUPPORTED_LANGUAGES index): whether common words are known for it */
  private readonly hasCommon: boolean[];
  private readonly langCounts = new Int32Array(SUPPORTED_LANGUAGES.length);
  /** after readsAs(): the language with the most common words (null: none, or a tie), and how many it has */
  guessed: SupportedLanguage | null = null;
  guessedCount = 0;
  /** combined logits z1 + z2 (max over windows) and each head's best window, after apply() */
  readonly z = new Float64Array(N_HEADS);
  readonly bestStart = new Int32Array(N_HEADS);
  readonly bestEnd = new Int32Array(N_HEADS);
  /** the feature normaliser of each head's best window (scales contrib[] into the logit) */
  readonly bestScale = new Float64Array(N_HEADS);
  /** per token t: its context contribution to each head (t * 8 + k), unnormalised */
  contrib = new Float64Array(256 * N_HEADS);
  private pre = new Float64Array(257 * N_HEADS);
  private preCount = new Int32Array(257);
  private feat = new Int32Array(MAX_CONTEXT_FEATURES);
  /** this stage's logits of the last window (z2) */
  readonly z2 = new Float64Array(N_HEADS);

  constructor(w: ContextWeights) {
    const h = w.header;
    this.shift = 32 - h.bits;
    this.hashed = w.hashed;
    this.bias = Float64Array.from(h.bias);
    this.plattLang = plattTable(h.platt, h.plattByLang);
    this.mixLang = SUPPORTED_LANGUAGES.map((l) =>
      Float64Array.from(h.mixByLang?.[l] ?? new Array(N_HEADS).fill(1)),
    );
    this.mix = this.mixLang[0]!;
    this.gateP = h.gateP;
    this.triggers = hashSet(h.triggers);
    this.stopwords = hashSet(h.stopwords);
    this.hasCommon = SUPPORTED_LANGUAGES.map((l, li) => {
      const words = h.commonWords?.[l] ?? [];
      // the trainer keeps a word for a language only where it is 3 times as common as in any other: one each
      for (const w of words) if (!this.commonLang.has(w)) this.commonLang.set(w, li);
      return words.length > 0;
    });
    this.commonAny = hashSet([...this.commonLang.keys()]);
  }

  /**
   * Reads the common words (words common in one language alone) among the first 64 tokens: whether the text reads as
   * language index `li` — it has more of that language's common words than of any other language's, or none are
   * known for `li`. Sets `guessed` to the language with the most common words (null when none has any, or on a tie):
   * a language guess from function words, two orders of magnitude cheaper than a character n-gram detector (tinyld
   * took a third of the time of a mostly benign stream when it ran on the 6 % of English messages that had no English
   * common word). One common word used to be enough to read as a language: a German text with "ich's" (the "s" of
   * English "it's") read as English, and was never scored as German.
   */
  readsAs(li: number, tH: Int32Array, n: number): boolean {
    const counts = this.langCounts;
    counts.fill(0);
    const m = Math.min(n, 64);
    for (let t = 0; t < m; t++) {
      const h = tH[t]!;
      if (!inSet(this.commonAny, h)) continue;
      const l = this.commonLang.get(h);
      if (l !== undefined) counts[l]!++;
    }
    let best = -1;
    let bestCount = 0;
    let tie = false;
    for (let l = 0; l < counts.length; l++) {
      const c = counts[l]!;
      if (c > bestCount) {
        best = l;
        bestCount = c;
        tie = false;
      } else if (c === bestCount && c > 0) tie = true;
    }
    this.guessed = best >= 0 && !tie ? SUPPORTED_LANGUAGES[best]! : null;
    this.guessedCount = bestCount;
    return !this.hasCommon[li]! || (best === li && !tie);
  }

  /** Whether a token of the text is a trigger term or carries a lexicon class. */
  hasTrigger(tH: Int32Array, flags: Int32Array, n: number): boolean {
    const trig = this.triggers;
    for (let t = 0; t < n; t++) {
      if ((flags[t]! & CLASS_MASK) !== 0 || inSet(trig, tH[t]!)) return true;
    }
    return false;
  }

  /**
   * Per-token contributions and their prefix sums for the n tokens (heads 0-6; spam, head 7, is never read), which
   * windowZ2 reads.
   */
  prepare(tH: Int32Array, flags: Int32Array, n: number): void {
    if (this.preCount.length < n + 1) {
      this.contrib = new Float64Array((n + 1) * N_HEADS);
      this.pre = new Float64Array((n + 1) * N_HEADS);
      this.preCount = new Int32Array(n + 1);
    }
    const W = this.hashed;
    const c = this.contrib;
    const pre = this.pre;
    const pc = this.preCount;
    const f = this.feat;
    for (let k = 0; k < N_HEADS; k++) pre[k] = 0;
    pc[0] = 0;
    // sums in locals, one write per token and head (a read-modify-write of the typed array per feature and head
    // was a third of a 32 KB text's time); the 8-head layout is fixed by the weights format
    let p0 = 0;
    let p1 = 0;
    let p2 = 0;
    let p3 = 0;
    let p4 = 0;
    let p5 = 0;
    let p6 = 0;
    for (let t = 0; t < n; t++) {
      const m = contextFeatures(tH, flags, n, t, this.shift, f, 0);
      let c0 = 0;
      let c1 = 0;
      let c2 = 0;
      let c3 = 0;
      let c4 = 0;
      let c5 = 0;
      let c6 = 0;
      for (let i = 0; i < m; i++) {
        const b = f[i]! << 3;
        c0 += W[b]!;
        c1 += W[b + 1]!;
        c2 += W[b + 2]!;
        c3 += W[b + 3]!;
        c4 += W[b + 4]!;
        c5 += W[b + 5]!;
        c6 += W[b + 6]!;
      }
      const o = t << 3;
      c[o] = c0;
      c[o + 1] = c1;
      c[o + 2] = c2;
      c[o + 3] = c3;
      c[o + 4] = c4;
      c[o + 5] = c5;
      c[o + 6] = c6;
      c[o + 7] = 0; // spam: never read
      pre[o + 8] = p0 += c0;
      pre[o + 9] = p1 += c1;
      pre[o + 10] = p2 += c2;
      pre[o + 11] = p3 += c3;
      pre[o + 12] = p4 += c4;
      pre[o + 13] = p5 += c5;
      pre[o + 14] = p6 += c6;
      pre[o + 15] = 0;
      pc[t + 1] = pc[t]! + m;
    }
  }

  /**
   * This stage's logits of the window [a, b) into z2 (a residual, added to the first stage's logits of the window);
   * returns the window's feature normaliser.
   */
  windowZ2(a: number, b: number, spamHead: number): number {
    const norm = 1 / Math.sqrt(Math.max(this.preCount[b]! - this.preCount[a]!, MIN_NORM));
    const pre = this.pre;
    for (let k = 0; k < N_HEADS; k++)
      this.z2[k] =
        k === spamHead ? 0 : this.bias[k]! + (pre[b * N_HEADS + k]! - pre[a * N_HEADS + k]!) * norm;
    return norm;
  }

  /**
   * Combined logits z1 + mix * z2 per head (max over the first stage's windows) into `z`, with each head's best
   * window, for language index `li`. `spamHead` keeps the first stage's logit. Reads the first stage's state after
   * its score() of the same text.
   */
  apply(first: FirstStage, tH: Int32Array, flags: Int32Array, n: number, spamHead: number, li: number): void {
    this.prepare(tH, flags, n);
    this.mix = this.mixLang[li]!;
    this.z.fill(Number.NEGATIVE_INFINITY);
    if (n <= first.window) {
      this.keepBest(first.z, this.windowZ2(0, n, spamHead), 0, n, -1);
      return;
    }
    this.scan(first, n, first.window, first.stride, -1, spamHead);
    this.scan(first, n, SHORT_WINDOW, SHORT_WINDOW / 2, spamHead, spamHead);
  }

  /** Keeps, per head, the larger of z and this window's z1 + mix * z2. */
  private keepBest(z1: Float64Array, norm: number, a: number, b: number, skip: number): void {
    const z = this.z;
    const mix = this.mix;
    for (let k = 0; k < N_HEADS; k++) {
      if (k === skip) continue;
      const v = z1[k]! + mix[k]! * this.z2[k]!;
      if (v > z[k]!) {
        z[k] = v;
        this.bestStart[k] = a;
        this.bestEnd[k] = b;
        this.bestScale[k] = mix[k]! * norm;
      }
    }
  }

  private scan(
    first: FirstStage,
    n: number,
    win: number,
    stride: number,
    skip: number,
    spamHead: number,
  ): void {
    for (let a = 0; ; a += stride) {
      const b = Math.min(n, a + win);
      first.windowAcc(a, b);
      this.keepBest(first.acc, this.windowZ2(a, b, spamHead), a, b, skip);
      if (b >= n) break;
    }
  }
}

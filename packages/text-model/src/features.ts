import { D_EMAIL, D_MONEY, D_PHONE, D_SHOUT, D_URL, FLAG_TO_DENSE, LEX, N_DENSE } from './constants.ts';
import { FNV_OFFSET, fmix, hashStep } from './hash.ts';
import type { Lexicon } from './lexicon.ts';
import { isAllCaps, TF_CJK, TF_EMOJI, TF_MENTION, TF_NUMBER, type Tokenizer } from './tokenize.ts';

const SEED_WORD = 0x2f6b1a37;
const SEED_BIGRAM = 0x51ed270b;
const SEED_CHAR = 0x1b873593;
const SEED_NUM = 0x7feb352d;
const SEED_CAPS = 0x68e31da4;
const BOS = 2;
const EOS = 3;
/** Char n-grams are taken from the first MAX_GRAM_CHARS characters of a token. */
export const MAX_GRAM_CHARS = 20;

/** Feature counts below this are treated as this many, so very short texts are not over-amplified. */
export const MIN_NORM_FEATURES = 16;

/** Rule flags (bits above the lexicon flags) attached to tokens. */
export const R_URL = 1 << 16;
export const R_PHONE = 1 << 17;
export const R_MONEY = 1 << 18;
export const R_EMAIL = 1 << 19;

const RE_URL_SCHEME = /(?:https?:\/\/|www\.)\S+/iy;
/** after a '.': a common TLD, then an optional path */
const RE_TLD = /(?:com|net|org|ly|io|co|info|biz|xyz|ru|me|tk|top|click|link|gl|gd|cc|us|uk)\b(?:\/\S*)?/iy;
const RE_PHONE = /(?:\+|\b)\d(?:[\d \t().-]{7,15})\d\b/g;
/**
 * A number is read for at most 40 more digits, ',' and '.' before its currency: unbounded, a run such as "1,1,1,…"
 * was re-read from every digit (32 KB of it took 0.7 s); no amount has that many.
 */
const RE_MONEY = /[$£€¥₹]\s?\d|\b\d[\d,.]{0,40}\s?(?:\$|£|€|usd|eur|gbp|dollars?|euros?|pounds?|bucks)\b/gi;
const RE_EMAIL_DOMAIN = /[\w-]+\.[\w.-]*\w/y;

/** ASCII character classes (bit sets) of the rules' pre-checks and the spam cues */
const C_UPPER = 1;
const C_LOWER = 2;
const C_DIGIT = 4;
/** [A-Za-z0-9_]: regex \w */
const C_WORD = 8;
/** space, tab, newline, carriage return */
const C_SPACE = 16;
const C_DOT = 32;
const C_AT = 64;
const C_DOLLAR = 128;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 65; c <= 90; c++) ASCII_CLASS[c] = C_UPPER | C_WORD;
for (let c = 97; c <= 122; c++) ASCII_CLASS[c] = C_LOWER | C_WORD;
for (let c = 48; c <= 57; c++) ASCII_CLASS[c] = C_DIGIT | C_WORD;
ASCII_CLASS[95] = C_WORD;
for (const c of [32, 10, 9, 13]) ASCII_CLASS[c] = C_SPACE;
ASCII_CLASS[46] = C_DOT;
ASCII_CLASS[64] = C_AT;
ASCII_CLASS[36] = C_DOLLAR;

/**
 * Character statistics of a text that decide which rule scans run (applyRules): ASCII capitals, lower-case letters
 * and digits, and whether it has '.', '@' or a currency sign ($ £ € ¥ ₹). spamCues fills them in passing for texts
 * of at most SPAM_CUE_CHARS characters, so that the text is not scanned twice.
 */
export class TextStats {
  upper = 0;
  lower = 0;
  digits = 0;
  dot = false;
  at = false;
  money = false;
  /** whether the fields describe the text being processed */
  valid = false;

  set(
    upper: number,
    lower: number,
    digits: number,
    dot: boolean,
    at: boolean,
    money: boolean,
    valid: boolean,
  ): this {
    this.upper = upper;
    this.lower = lower;
    this.digits = digits;
    this.dot = dot;
    this.at = at;
    this.money = money;
    this.valid = valid;
    return this;
  }
}

/**
 * Per-text feature state: hashed feature indices grouped by token, lexicon/rule flags per token, and the
 * highlight end per token (phrases and URLs highlight more than one token).
 */
export class FeatureExtractor {
  readonly shift: number;
  idx = new Int32Array(4096);
  /** tokFeatStart[t]..tokFeatStart[t+1] are token t's features in idx */
  tokFeatStart = new Int32Array(257);
  /** tokCharStart[t]..tokFeatStart[t+1] are token t's char n-gram features (the rest are word-level) */
  tokCharStart = new Int32Array(256);
  /**
   * featPre[t] = number of features (word-level and char n-grams) of tokens before t, whether or not char n-grams
   * are written to idx (the window normaliser counts them all).
   */
  featPre = new Int32Array(257);
  tokFlags = new Int32Array(256);
  hlEnd = new Int32Array(256);
  shout = 0;
  /**
   * false: char n-gram indices are not written to idx (tokCharStart[t] = tokFeatStart[t+1]); the runtime scorer then
   * sums their weights per token itself, through its token cache. The trainer needs them written.
   */
  emitCharGrams = true;
  private langBit = 1;
  /** seed mixed into hashed features (0 for English; see run) */
  langSeed = 0;

  constructor(
    readonly tok: Tokenizer,
    readonly lex: Lexicon | null,
    bits: number,
  ) {
    this.shift = 32 - bits;
  }

  /**
   * Tokenizes and extracts features for the whole text. Returns the token count. `stats`: the text's TextStats when
   * the caller has them (valid), else they are counted here.
   */
  run(text: string, lang: string, langBit: number, stats: TextStats | null = null): number {
    const tok = this.tok;
    this.langBit = langBit;
    const nTok = tok.run(text, lang, langBit);
    if (this.tokFlags.length < nTok + 1) this.growTokens(Math.max(nTok + 1, this.tokFlags.length * 2));
    const flags = this.tokFlags;
    const hlEnd = this.hlEnd;
    const lex = this.lex;
    for (let t = 0; t < nTok; t++) {
      const li = tok.tLex[t]!;
      flags[t] = li >= 0 && lex !== null ? lex.flags[li]! : 0;
      hlEnd[t] = tok.oE[t]!;
    }
    if (lex !== null && lex.maxPhraseTokens > 1) this.matchPhrases(nTok);
    this.applyRules(text, nTok, stats?.valid ? stats : this.countStats(text));
    // Hashed features are language-specific except for English: Turkish or German n-grams then do not pull on
    // English weights, and languages without training data get no spurious n-gram scores (their signal comes
    // from the language-independent lexicon features and rule floors). Chosen on validation splits.
    this.langSeed = lang === 'en' ? 0 : Math.imul(hashLang(lang), 0x27d4eb2d);
    this.hashFeatures(text, nTok);
    return nTok;
  }

  private growTokens(k: number): void {
    this.tokFlags = new Int32Array(k);
    this.hlEnd = new Int32Array(k);
    this.tokFeatStart = new Int32Array(k + 1);
    this.featPre = new Int32Array(k + 1);
    this.tokCharStart = new Int32Array(k);
  }

  /** Sizes every buffer for texts of up to `chars` UTF-16 units (see Tokenizer.reserve). */
  reserve(chars: number): void {
    this.tok.reserve(chars);
    if (this.tokFlags.length < chars + 1) this.growTokens(chars + 1);
    // per token: 2-4 word-level features, plus char n-grams (≤ 4 per character of its first MAX_GRAM_CHARS) if emitted
    const perToken = this.emitCharGrams ? 4 * MAX_GRAM_CHARS + 16 : 4;
    if (this.idx.length < chars * perToken + 4 * MAX_GRAM_CHARS + 16)
      this.idx = new Int32Array(chars * perToken + 4 * MAX_GRAM_CHARS + 16);
  }

  private matchPhrases(nTok: number): void {
    const tok = this.tok;
    const lex = this.lex!;
    const tH = tok.tH;
    for (let t = 0; t < nTok; t++) {
      const list = lex.phrasesStartingWith(tH[t]!);
      if (list === undefined) continue;
      for (const { entry, hashes } of list) {
        const m = hashes.length;
        if (t + m > nTok || (lex.langs[entry]! & this.langBit) === 0) continue;
        let ok = true;
        for (let k = 1; k < m; k++) {
          if (tH[t + k] !== hashes[k]) {
            ok = false;
            break;
          }
        }
        if (ok) {
          this.tokFlags[t]! |= lex.flags[entry]!;
          this.hlEnd[t] = Math.max(this.hlEnd[t]!, tok.oE[t + m - 1]!);
        }
      }
    }
  }

  private readonly stats = new TextStats();

  /** The TextStats of text, counted. */
  private countStats(text: string): TextStats {
    let dot = false;
    let digits = 0;
    let at = false;
    let money = false;
    let upper = 0;
    let lower = 0;
    const len = text.length;
    // without branches on the character class (they were mispredicted on every change of class): classes 1, 2
    // and 4 are counted, the others OR-ed together
    let seen = 0;
    for (let i = 0; i < len; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        const k = ASCII_CLASS[c]!;
        upper += k & C_UPPER;
        lower += (k & C_LOWER) >> 1;
        digits += (k & C_DIGIT) >> 2;
        seen |= k;
      } else if (isCurrencySign(c)) money = true;
    }
    dot = (seen & C_DOT) !== 0;
    at = (seen & C_AT) !== 0;
    if ((seen & C_DOLLAR) !== 0) money = true;
    return this.stats.set(upper, lower, digits, dot, at, money, true);
  }

  private applyRules(text: string, nTok: number, st: TextStats): void {
    this.shout = 0;
    if (nTok === 0) return;
    // Cheap pre-checks keep the regexes off most texts.
    const { upper, lower, digits, dot, at, money } = st;
    if (upper >= 8 && upper > 2 * lower) this.shout = 1;
    if (dot) this.markUrls(text, nTok);
    if (digits >= 9) this.markRegex(text, RE_PHONE, R_PHONE, nTok);
    if (money || digits > 0) this.markRegex(text, RE_MONEY, R_MONEY, nTok);
    if (at && dot) this.markEmails(text, nTok);
  }

  /**
   * URLs: scheme/www prefixes, and bare domains with a common TLD. Anchored on '.', 'http' and 'www' with sticky
   * regexes, so long texts are not scanned by a backtracking regex at every position.
   */
  private markUrls(text: string, nTok: number): void {
    let covered = -1;
    const spans: number[] = [];
    for (const prefix of ['http', 'www.', 'HTTP', 'WWW.']) {
      for (let p = text.indexOf(prefix); p >= 0; p = text.indexOf(prefix, p + 1)) {
        RE_URL_SCHEME.lastIndex = p;
        const m = RE_URL_SCHEME.exec(text);
        if (m === null) continue;
        this.markSpan(p, p + m[0].length, R_URL, nTok);
        spans.push(p, p + m[0].length);
      }
    }
    for (let d = text.indexOf('.'); d >= 0; d = text.indexOf('.', d + 1)) {
      if (d <= covered || inSpans(spans, d)) continue;
      let s = d;
      while (s > 0 && isDomainChar(text.charCodeAt(s - 1))) s--;
      if (d - s < 2 || (s > 0 && isWordChar(text.charCodeAt(s - 1)))) continue;
      RE_TLD.lastIndex = d + 1;
      const m = RE_TLD.exec(text);
      if (m === null) continue;
      covered = d + 1 + m[0].length;
      this.markSpan(s, covered, R_URL, nTok);
    }
  }

  /** E-mail addresses, anchored on '@'. */
  private markEmails(text: string, nTok: number): void {
    for (let p = text.indexOf('@'); p >= 0; p = text.indexOf('@', p + 1)) {
      let s = p;
      while (s > 0 && isEmailLocalChar(text.charCodeAt(s - 1))) s--;
      if (s === p) continue;
      RE_EMAIL_DOMAIN.lastIndex = p + 1;
      const m = RE_EMAIL_DOMAIN.exec(text);
      if (m !== null) this.markSpan(s, p + 1 + m[0].length, R_EMAIL, nTok);
    }
  }

  private markRegex(text: string, re: RegExp, flag: number, nTok: number): void {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      this.markSpan(m.index, m.index + m[0].length, flag, nTok);
      if (m[0].length === 0) re.lastIndex++;
    }
  }

  /** Flags the first token overlapping [start, end) and extends its highlight to the end of the match. */
  private markSpan(start: number, end: number, flag: number, nTok: number): void {
    const oS = this.tok.oS;
    const oE = this.tok.oE;
    let lo = 0;
    let hi = nTok;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (oE[mid]! <= start) lo = mid + 1;
      else hi = mid;
    }
    if (lo < nTok && oS[lo]! < end) {
      this.tokFlags[lo]! |= flag;
      this.hlEnd[lo] = Math.max(this.hlEnd[lo]!, end);
    }
  }

  private hashFeatures(text: string, nTok: number): void {
    const tok = this.tok;
    const cps = tok.cps;
    const shift = this.shift;
    const emitChars = this.emitCharGrams;
    const capsIdx = fmix(SEED_CAPS) >>> shift;
    let idx = this.idx;
    let w = 0;
    let prevH = 0x3c3c3c3c;
    const starts = this.tokFeatStart;
    const featPre = this.featPre;
    featPre[0] = 0;
    for (let t = 0; t < nTok; t++) {
      starts[t] = w;
      const s = tok.tS[t]!;
      const e = tok.tE[t]!;
      const len = e - s;
      const need = w + 4 * Math.min(len, MAX_GRAM_CHARS) + 16;
      if (need > idx.length) {
        const b = new Int32Array(Math.max(need, idx.length * 2));
        b.set(idx);
        idx = b;
        this.idx = b;
      }
      const h = tok.tH[t]! ^ this.langSeed;
      const f = tok.tFlag[t]!;
      const wi = fmix(h ^ SEED_WORD) >>> shift;
      const bi = fmix(Math.imul(prevH, 0x9e3779b1) ^ h ^ SEED_BIGRAM) >>> shift;
      idx[w++] = wi;
      idx[w++] = bi;
      prevH = h;
      let charN = 0;
      if ((f & TF_NUMBER) !== 0) {
        idx[w++] = fmix(SEED_NUM + Math.min(len, 12)) >>> shift;
      } else if ((f & (TF_MENTION | TF_EMOJI)) === 0) {
        // ALL-CAPS words ("FREE", "WINNER") are a spam and shouting cue lost by lower-casing.
        const caps = tok.tCaps[t]!;
        if (caps === 1 || (caps < 0 && isAllCaps(text, tok.oS[t]!, tok.oE[t]!))) idx[w++] = capsIdx;
        const cjk = (f & TF_CJK) !== 0;
        const m = Math.min(len, MAX_GRAM_CHARS);
        charN = charGramCount(m, cjk);
        if (emitChars) {
          this.tokCharStart[t] = w;
          w = charGrams(cps, s, m, cjk, this.langSeed, shift, idx, w);
        }
      }
      if (!emitChars || charN === 0) this.tokCharStart[t] = w;
      featPre[t + 1] = featPre[t]! + (w - starts[t]!) + (emitChars ? 0 : charN);
    }
    starts[nTok] = w;
  }
}

/** Char n-grams per token: 2-5-grams (1-3-grams for CJK) of "<token>" with boundary markers. */
const CHAR_N = [false, true].map((cjk) => {
  const minN = cjk ? 1 : 2;
  const maxN = cjk ? 3 : 5;
  const out = new Int32Array(MAX_GRAM_CHARS + 1);
  for (let m = 0; m <= MAX_GRAM_CHARS; m++) {
    const total = m + 2;
    for (let i = 0; i < total; i++) out[m]! += Math.max(0, Math.min(total, i + maxN) - i - minN + 1);
  }
  return out;
});

/** Number of char n-gram features of a token whose first `m` (≤ MAX_GRAM_CHARS) code points are used. */
export function charGramCount(m: number, cjk: boolean): number {
  return CHAR_N[cjk ? 1 : 0]![m]!;
}

/**
 * Writes the char n-gram bucket indices of the token cps[s, s+m) (m ≤ MAX_GRAM_CHARS; boundary markers added) into
 * idx from position w; returns the new position. The scorer's per-token cache depends on this being a function of
 * (code points, cjk, langSeed) only.
 */
export function charGrams(
  cps: Int32Array,
  s: number,
  m: number,
  cjk: boolean,
  langSeed: number,
  shift: number,
  idx: Int32Array,
  w0: number,
): number {
  let w = w0;
  const minN = cjk ? 1 : 2;
  const maxN = cjk ? 3 : 5;
  const total = m + 2;
  for (let i = 0; i < total; i++) {
    let g = SEED_CHAR ^ langSeed;
    const lim = Math.min(total, i + maxN);
    for (let j = i; j < lim; j++) {
      const c = j === 0 ? BOS : j === total - 1 ? EOS : cps[s + j - 1]!;
      g = hashStep(g, c);
      if (j - i + 1 >= minN) idx[w++] = fmix(g) >>> shift;
    }
  }
  return w;
}

/** £ € ¥ ₹ (the ASCII $ has its own class) */
function isCurrencySign(c: number): boolean {
  return c === 163 || c === 8364 || c === 165 || c === 8377;
}

function inSpans(spans: number[], p: number): boolean {
  for (let i = 0; i < spans.length; i += 2) if (p >= spans[i]! && p < spans[i + 1]!) return true;
  return false;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isDomainChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45;
}

function isEmailLocalChar(c: number): boolean {
  return isWordChar(c) || c === 46 || c === 43 || c === 45;
}

function hashLang(l: string): number {
  return (l.charCodeAt(0) << 8) | l.charCodeAt(1);
}

/** Dense feature value for a count of hits inside a window. */
export function denseValue(count: number): number {
  return count <= 0 ? 0 : count === 1 ? 1 : count === 2 ? 1.5 : 2;
}

/** Adds the dense-feature hits of one token's flags `f` to out[o, o + N_DENSE). */
export function addDenseHits(f: number, out: Float64Array | Int32Array, o: number): void {
  if (f === 0) return;
  if ((f & LEX.DECODE_ONLY) !== 0 && (f & ~LEX.DECODE_ONLY & 0xffff) === 0 && f < R_URL) return;
  for (let i = 0; i < FLAG_TO_DENSE_BITS.length; i++)
    if ((f & FLAG_TO_DENSE_BITS[i]!) !== 0) out[o + FLAG_TO_DENSE_INDEX[i]!]!++;
  if ((f & R_URL) !== 0) out[o + D_URL]!++;
  if ((f & R_PHONE) !== 0) out[o + D_PHONE]!++;
  if ((f & R_MONEY) !== 0) out[o + D_MONEY]!++;
  if ((f & R_EMAIL) !== 0) out[o + D_EMAIL]!++;
}
const FLAG_TO_DENSE_BITS = Int32Array.from(FLAG_TO_DENSE, ([bit]) => bit);
const FLAG_TO_DENSE_INDEX = Int32Array.from(FLAG_TO_DENSE, ([, d]) => d);

/** Accumulates dense-feature hit counts of tokens [a, b) into `out` (length N_DENSE). */
export function denseCounts(flags: Int32Array, a: number, b: number, shout: number, out: Float64Array): void {
  out.fill(0);
  for (let t = a; t < b; t++) addDenseHits(flags[t]!, out, 0);
  for (let d = 0; d < N_DENSE; d++) out[d] = denseValue(out[d]!);
  out[D_SHOUT] = shout;
}

/**
 * Text-level spam cues (used by the spam head only), computed from the first SPAM_CUE_CHARS characters of the raw
 * text. SMS spam carries signals that hashed n-grams normalised by 1/sqrt(count) dilute, or that tokenization
 * loses: premium short codes ("txt WIN to 87121"), per-message prices ("150p/msg"), opt-out and age lines
 * ("send STOP", "16+"), prize words, digit density, ALL-CAPS words and message length.
 */
export const SPAM_CUES = [
  'short_code',
  'price_per_unit',
  'txt_keyword_to_number',
  'opt_out_or_legal',
  'prize_words',
  'premium_number',
  'currency',
  'digit_density',
  'caps_words',
  'length_sms',
  'length_long',
  'service_words',
  'phone_number',
] as const;
export const N_SPAM_CUES = SPAM_CUES.length;
const SPAM_CUE_CHARS = 1000;

const RE_SHORT_CODE = /(?<![\d£$€.,:/-])\d{5,6}(?![\d.,:/])/;
const RE_PRICE =
  /\d(?:\.\d+)?p\b|\bp\s?\/\s?(?:min|msg|txt|sms|wk|week|text)\b|\/(?:min|msg|txt|sms|wk)\b|\bper (?:min|minute|msg|message|txt|text|wk|week)\b|\bppm\b|\d\s?pence\b/i;
const RE_TXT_TO =
  /\b(?:txt|text|sms|send|reply|call|ring|dial)\b[^\n.!?]{0,30}?\b(?:to|on|now)\s*:?\s*\d{4,}/i;
const RE_TXT_KEYWORD = /\b(?:[Rr]eply|REPLY|[Tt]xt|TXT|[Tt]ext|TEXT|[Ss]end|SEND)\s+(?:[A-Z]{2,}|[A-Z])\b/;
const RE_OPT_OUT =
  /\bstop\b|\bunsub|\bopt[\s-]?out\b|\bt\s?&\s?cs?\b|\btcs\b|\b1[68]\s?\+|\bpo\s?box|\bcustomer (?:care|service)\b/i;
const RE_PREMIUM = /\b0(?:9\d|8[47]\d)\d{7,8}\b|\b0800\s?\d{6,7}\b/;
/**
 * Cue words, matched against whole ASCII word runs ([A-Za-z0-9_]+, case-insensitive) — what `\b(?:w1|w2|…)\b` with
 * the /i flag matches, counted without a regex scan. PRIZE and SERVICE are counted (up to 3); KEYWORD and TXT_TO
 * words and the OPT_OUT words/prefixes gate the regexes that need them (a text without them cannot match).
 */
export const PRIZE_WORDS =
  'won winner win wins prize awarded award claim guaranteed cash voucher bonus selected congratulations congrats urgent free freemsg offer entry draw ringtone ringtones tones landline valid expires';
export const SERVICE_WORDS =
  'txt txts msg msgs mob mobile ringtone ringtones polyphonic nokia camcorder video pic pics chat dating sexy singles download content service network rate rates unlimited latest subscription subscriber sae tc cs ur u 4 2';
const W_PRIZE = 1;
const W_SERVICE = 2;
/** words RE_TXT_KEYWORD starts with */
const W_KEYWORD = 4;
/** words RE_TXT_TO starts with */
const W_TXT_TO = 8;
/** whole-word alternatives of RE_OPT_OUT */
const W_OPT = 16;
const CUE_WORD_BITS: [string, number][] = [
  [PRIZE_WORDS, W_PRIZE],
  [SERVICE_WORDS, W_SERVICE],
  ['reply txt text send', W_KEYWORD],
  ['txt text sms send reply call ring dial', W_TXT_TO],
  ['stop tcs', W_OPT],
];
/** open-addressing table: FNV-1a hash of the lower-cased word → index into cueWords */
const CUE_TABLE = 256;
const cueKeys = new Int32Array(CUE_TABLE);
const cueSlot = new Int32Array(CUE_TABLE).fill(-1);
const cueWords: string[] = [];
const cueBits: number[] = [];
for (const [list, bit] of CUE_WORD_BITS) {
  for (const w of list.split(' ')) {
    let i = cueWords.indexOf(w);
    if (i < 0) {
      i = cueWords.push(w) - 1;
      cueBits.push(0);
      let h = FNV_OFFSET;
      for (let k = 0; k < w.length; k++) h = hashStep(h, w.charCodeAt(k));
      let slot = h & (CUE_TABLE - 1);
      while (cueSlot[slot] !== -1) slot = (slot + 1) & (CUE_TABLE - 1);
      cueKeys[slot] = h;
      cueSlot[slot] = i;
    }
    cueBits[i]! |= bit;
  }
}
const MAX_CUE_WORD = Math.max(...cueWords.map((w) => w.length));

/** Whether s[start, end), ASCII letters lower-cased, begins with the lower-case word w. */
function startsWithLower(s: string, start: number, end: number, w: string): boolean {
  if (end - start < w.length) return false;
  for (let k = 0; k < w.length; k++) {
    const c = s.charCodeAt(start + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== w.charCodeAt(k)) return false;
  }
  return true;
}

/** Bits of the cue word equal to the lower-cased s[start, end) (whose FNV-1a hash is h), or 0. */
function cueWordBits(s: string, start: number, end: number, h: number): number {
  for (let slot = h & (CUE_TABLE - 1); cueSlot[slot] !== -1; slot = (slot + 1) & (CUE_TABLE - 1)) {
    if (cueKeys[slot] !== h) continue;
    const w = cueWords[cueSlot[slot]!]!;
    if (w.length === end - start && startsWithLower(s, start, end, w)) return cueBits[cueSlot[slot]!]!;
  }
  return 0;
}

/** Whether the lower-cased s[start, end) starts with one of RE_OPT_OUT's word prefixes. */
function optOutPrefix(s: string, start: number, end: number): boolean {
  for (const p of OPT_PREFIXES) if (startsWithLower(s, start, end, p)) return true;
  return false;
}
const OPT_PREFIXES = ['unsub', 'opt', 'po', 'customer'];

const RE_PHONE_NUMBER = /(?<![\d.])(?:\+?44\s?|0)\d{3,4}\s?\d{6,7}(?![\d.])/;
const RE_CURRENCY = /[£$€¥₹]\s?\d|\d\s?(?:[£$€]|usd|eur|gbp)\b/i;

/**
 * Fills out[0..N_SPAM_CUES) with the text's spam cues (values in [0, 2]), and `stats` with the text's TextStats when
 * the text has at most SPAM_CUE_CHARS characters (else stats.valid is false).
 */
export function spamCues(text: string, out: Float64Array, stats: TextStats | null = null): void {
  out.fill(0);
  const s = text.length > SPAM_CUE_CHARS ? text.slice(0, SPAM_CUE_CHARS) : text;
  const len = s.length;
  let digits = 0;
  let digitRun = 0;
  let maxDigitRun = 0;
  let space = 0;
  let words = 0;
  let capsWords = 0;
  let up = 0;
  let low = 0;
  let inWord = false;
  // ASCII word runs ([A-Za-z0-9_]+): start, lower-cased FNV-1a hash, and the cue words found
  let runStart = -1;
  let runH = 0;
  let bits = 0;
  let prize = 0;
  let service = 0;
  let optGate = false;
  let upper = 0;
  let lower = 0;
  let dot = false;
  let at = false;
  let money = false;
  // one extra, virtual space ends the last word and run
  for (let i = 0; i <= len; i++) {
    const c = i < len ? s.charCodeAt(i) : 32;
    const k = c < 128 ? ASCII_CLASS[c]! : 0;
    if ((k & (C_UPPER | C_LOWER)) !== 0) {
      if (!inWord) {
        inWord = true;
        up = 0;
        low = 0;
      }
      if ((k & C_UPPER) !== 0) up++;
      else low++;
    } else if (inWord) {
      inWord = false;
      words++;
      upper += up;
      lower += low;
      if (up >= 2 && low === 0) capsWords++;
    }
    if ((k & C_DIGIT) !== 0) {
      digits++;
      if (++digitRun > maxDigitRun) maxDigitRun = digitRun;
    } else digitRun = 0;
    if ((k & C_WORD) !== 0) {
      if (runStart < 0) {
        runStart = i;
        runH = FNV_OFFSET;
      }
      runH = hashStep(runH, (k & C_UPPER) !== 0 ? c + 32 : c);
      continue;
    }
    if (runStart >= 0) {
      const n = i - runStart;
      if (n <= MAX_CUE_WORD) {
        const b = cueWordBits(s, runStart, i, runH);
        if (b !== 0) {
          bits |= b;
          if ((b & W_PRIZE) !== 0) prize++;
          if ((b & W_SERVICE) !== 0) service++;
        }
      }
      if (!optGate && n >= 2) {
        const f = s.charCodeAt(runStart) | 32; // first letter of unsub, opt, po, customer
        if (f === 117 || f === 111 || f === 112 || f === 99) optGate = optOutPrefix(s, runStart, i);
      }
      runStart = -1;
    }
    if (k === C_SPACE) space++;
    else if (c === 38 || c === 43)
      optGate = true; // '&' (T&Cs), '+' (16+, 18+)
    else if (k === C_DOT) dot = true;
    else if (k === C_AT) at = true;
    else if (k === C_DOLLAR || (c >= 128 && isCurrencySign(c))) money = true;
  }
  stats?.set(upper, lower, digits, dot, at, money, len === text.length);
  const nonSpace = len + 1 - space;
  // Each regex runs only when the text has what it needs (digits, a keyword, a long enough digit run).
  if (digits > 0) {
    if (maxDigitRun >= 5 && RE_SHORT_CODE.test(s)) out[0] = 1;
    if (RE_PRICE.test(s)) out[1] = 1;
    if ((bits & W_TXT_TO) !== 0 && maxDigitRun >= 4 && RE_TXT_TO.test(s)) out[2] = 1;
    if (maxDigitRun >= 4 && RE_PREMIUM.test(s)) out[5] = 1;
    if (RE_CURRENCY.test(s)) out[6] = 1;
  }
  if (out[2] === 0 && (bits & W_KEYWORD) !== 0 && RE_TXT_KEYWORD.test(s)) out[2] = 1;
  if ((optGate || (bits & W_OPT) !== 0) && RE_OPT_OUT.test(s)) out[3] = 1;
  out[4] = denseValue(Math.min(prize, 3));
  out[7] = Math.min(1, (4 * digits) / Math.max(40, nonSpace));
  out[8] = words === 0 ? 0 : Math.min(1, (3 * capsWords) / Math.max(5, words));
  out[9] = Math.min(text.length, 160) / 160;
  out[10] = text.length > 400 ? 1 : 0;
  out[11] = denseValue(Math.min(service, 3));
  if (digits >= 10 && RE_PHONE_NUMBER.test(s)) out[12] = 1;
}

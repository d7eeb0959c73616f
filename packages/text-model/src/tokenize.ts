import {
  C_DIGIT,
  C_EMOJI,
  C_LETTER,
  C_SEP,
  C_SYM,
  CONFUSABLES,
  charRec,
  LEET,
  MAP_DROP,
  MAP_MULTI,
  mapChar,
  RUSSIAN_LETTER,
  S_CYRILLIC,
  S_GREEK,
  S_HAN,
  S_HANGUL,
  S_HIRAGANA,
  S_KATAKANA,
  S_LATIN,
} from './chars.ts';
import { FNV_OFFSET, fmix, hashRange, hashStep } from './hash.ts';
import type { Lexicon } from './lexicon.ts';

export const TF_NUMBER = 1;
export const TF_EMOJI = 2;
export const TF_MENTION = 4;
export const TF_CJK = 8;
export const TF_DECODED = 16;

/** chunk cache: 2^CHUNK_BITS entries of CHUNK_ENTRY ints; chunks of up to CHUNK_MAX_CHARS, tokens of up to 24 */
const CHUNK_BITS = 16;
const CHUNK_ENTRY_SHIFT = 4;
const CHUNK_ENTRY = 1 << CHUNK_ENTRY_SHIFT;
/** number of chunk cache entries (see Tokenizer.tSlot) */
export const CHUNK_SLOTS = 1 << CHUNK_BITS;
const CHUNK_MAX_CHARS = 20;
const CHUNK_MAX_TOKEN = 24;
/** what an ASCII character does in the tokenizer: ends a token (separator), or is part of it, or neither */
const K_SEP = 1;
const K_PART = 2;
const K_OTHER = 3;
const ASCII_KIND = new Uint8Array(128);
{
  const meta = new Uint8Array(1);
  for (let c = 0; c < 128; c++) {
    const m = mapChar(c, meta);
    const cls = meta[0]! & 15;
    // separators and other unmapped characters flush the current token; dropped ones are skipped
    if (m >= 0) ASCII_KIND[c] = cls === C_SEP ? K_SEP : cls === C_EMOJI ? K_OTHER : K_PART;
    else if (m === MAP_DROP) ASCII_KIND[c] = K_PART;
    else if (m === MAP_MULTI) ASCII_KIND[c] = K_OTHER;
    else ASCII_KIND[c] = K_SEP;
  }
}

/** Up to four ASCII characters of text[at, end) packed into one int, the first in the low byte. */
function packAscii(text: string, at: number, end: number): number {
  let packed = 0;
  for (let k = 0; k < 4 && at + k < end; k++) packed |= text.charCodeAt(at + k) << (8 * k);
  return packed;
}

const STAR = 0x2a;
const AT = 0x40;
const HASH = 0x23;
const BANG = 0x21;
const MAX_CJK_SUB = 6;

function isCjk(script: number): boolean {
  return script === S_HAN || script === S_HIRAGANA || script === S_KATAKANA || script === S_HANGUL;
}

/**
 * Normalising tokenizer. Produces tokens of normalised code points, each with its span in the ORIGINAL string
 * (UTF-16 offsets), undoing common evasions: confusables, leetspeak, masks, repeated and spaced-out letters.
 * Buffers are reused between calls; a tokenizer is not re-entrant.
 */
export class Tokenizer {
  cps = new Int32Array(1024);
  private cMeta = new Uint8Array(1024);
  private cOS = new Int32Array(1024);
  private cOE = new Int32Array(1024);
  n = 0;

  nTok = 0;
  tS = new Int32Array(256);
  tE = new Int32Array(256);
  oS = new Int32Array(256);
  oE = new Int32Array(256);
  tH = new Int32Array(256);
  tLex = new Int32Array(256);
  tFlag = new Uint8Array(256);
  /** whether token t's original text is ALL CAPS (isAllCaps), when the chunk cache knew it: 0 or 1; -1 unknown */
  tCaps = new Int8Array(256);
  /**
   * For a token made from a cached chunk: the chunk cache entry (0 ≤ tSlot < CHUNK_SLOTS) and the serial number the
   * tokenizer gave that chunk when it stored it (≥ 1; tSerial is 0 for tokens made otherwise). Serial numbers are
   * never reused for another chunk (after 2^31 stores they restart at 1 with a new serialEpoch), so a user keeping
   * data per entry, tagged with the serial it was made for, knows whether it still describes the token's chunk.
   */
  tSlot = new Int32Array(256);
  tSerial = new Int32Array(256);
  /** incremented when serial numbers restart: data tagged with an older epoch's serials must be dropped */
  serialEpoch = 0;
  private serial = 0;

  private scratch = new Int32Array(256);
  private readonly maskOut = { len: 0 };
  private langBit = 1;
  /**
   * Whether all-look-alike Cyrillic words stay Cyrillic: Russian declared, or Russian letters in the text. Decided
   * on the first such word (most texts have none), from the text being tokenized: 1 yes, 0 no, -1 not yet.
   */
  private cyrillicText = -1;
  private text = '';
  private curStart = -1;
  private curKey = 0;
  private readonly metaOut = new Uint8Array(1);
  private langIdx = 0;
  /**
   * Chunk cache, direct-mapped, 64-byte entries: what an ASCII chunk (the characters between two separators, at
   * most CHUNK_MAX_CHARS) produced for a language, so common words skip per-character mapping, finalizing, hashing
   * and the lexicon lookup. int32 entry: [0] tag (1 | length << 1 | language index << 6), [1..5] the chunk's
   * characters packed four per int, [6] token hash, [7] lexicon entry, [8] tokens made (0 or 1) | flags << 1 |
   * start << 6 | end << 11 (relative to the chunk) | length << 16 | first character's metadata << 21 | all caps << 29,
   * [9..14] token code points packed four per int, [15] the chunk's serial number (see tSerial; 0 if it makes no
   * token). Entries are verified against the chunk's characters.
   */
  private readonly chunkCache: Int32Array;
  private readonly chunkMask: number;

  /**
   * `chunkBits` sizes the chunk cache (2^chunkBits entries of 64 bytes; 4 MB by default): a tokenizer kept per
   * term list (the server's match lists) uses a smaller one.
   */
  constructor(
    private readonly lex: Lexicon | null,
    chunkBits = CHUNK_BITS,
  ) {
    const bits = Math.max(4, Math.min(CHUNK_BITS, Math.floor(chunkBits)));
    this.chunkCache = new Int32Array(CHUNK_ENTRY << bits);
    this.chunkMask = (1 << bits) - 1;
  }

  /** Empties the chunk cache. */
  clearCache(): void {
    this.chunkCache.fill(0);
  }

  /** Tokenizes `text`; returns the number of tokens. `langBit` selects language-specific lexicon entries. */
  run(text: string, lang: string, langBit: number): number {
    this.cyrillicText = lang === 'ru' ? 1 : -1;
    this.text = text;
    this.langBit = langBit;
    this.langIdx = 31 - Math.clz32(langBit);
    this.n = 0;
    this.nTok = 0;
    this.curStart = -1;
    this.curKey = 0;
    const len = text.length;
    this.ensureCps(len * 2 + 64);
    let i = 0;
    while (i < len) {
      // At a token boundary, a chunk of ASCII characters up to the next separator is looked up in the chunk cache.
      if (this.curStart < 0) {
        const c = text.charCodeAt(i);
        if (c < 128) {
          const kind = ASCII_KIND[c]!;
          if (kind === K_SEP) {
            i++;
            continue;
          }
          let j = i;
          let h = FNV_OFFSET;
          let cacheable = true;
          while (j < len) {
            const d = text.charCodeAt(j);
            if (d >= 128) {
              cacheable = false;
              break;
            }
            const k = ASCII_KIND[d]!;
            if (k === K_SEP) break;
            if (k === K_OTHER) cacheable = false;
            h = hashStep(h, d);
            j++;
          }
          if (cacheable && j - i <= CHUNK_MAX_CHARS) {
            const slot = ((fmix(h ^ this.langIdx) >>> 0) & this.chunkMask) * CHUNK_ENTRY;
            if (!this.chunkHit(text, i, j, slot)) {
              const t0 = this.nTok;
              for (let p = i; p < j; p++) this.pushChar(text, p);
              this.flush();
              this.chunkStore(text, i, j, slot, t0);
            }
            i = j;
            continue;
          }
        }
      }
      i += this.pushChar(text, i);
    }
    this.flush();
    this.joinSpacedLetters(text);
    this.text = '';
    return this.nTok;
  }

  private isCyrillicText(): boolean {
    if (this.cyrillicText < 0) this.cyrillicText = RUSSIAN_LETTER.test(this.text) ? 1 : 0;
    return this.cyrillicText === 1;
  }

  /** Maps and pushes the character at text[i]; returns its length in UTF-16 units. */
  private pushChar(text: string, i: number): number {
    let cp = text.charCodeAt(i);
    let w = 1;
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
        w = 2;
      }
    }
    const metaOut = this.metaOut;
    const m = mapChar(cp, metaOut);
    if (m >= 0) this.push(m, metaOut[0]!, i, i + w);
    else if (m === MAP_MULTI) {
      const rec = charRec(cp);
      for (let j = 0; j < rec.cps.length; j++) this.push(rec.cps[j]!, rec.meta[j]!, i, i + w);
    } else if (m !== MAP_DROP) this.flush();
    return w;
  }

  /**
   * Emits the cached token of the ASCII chunk text[a, b) if the slot holds that chunk (for this language): what
   * pushing its characters and finalizing would emit, without doing it.
   */
  private chunkHit(text: string, a: number, b: number, e: number): boolean {
    const ce = this.chunkCache;
    const len = b - a;
    if (ce[e] !== this.chunkTag(len)) return false;
    for (let i = 0; i < len; i += 4) if (ce[e + 1 + (i >> 2)] !== packAscii(text, a + i, b)) return false;
    const info = ce[e + 8]!;
    if ((info & 1) === 0) return true; // the chunk makes no token ("!!!", "#")
    const tokLen = (info >>> 16) & 31;
    this.ensureCps(this.n + tokLen + 1);
    const at = this.n;
    const cps = this.cps;
    for (let i = 0; i < tokLen; i++) cps[at + i] = (ce[e + 9 + (i >> 2)]! >>> (8 * (i & 3))) & 255;
    // only a token's first character's metadata is read later (single-letter tokens in joinSpacedLetters)
    this.cMeta[at] = (info >>> 21) & 255;
    this.n = at + tokLen;
    const t = this.nTok;
    this.ensureTok(t + 1);
    this.tS[t] = at;
    this.tE[t] = at + tokLen;
    this.oS[t] = a + ((info >>> 6) & 31);
    this.oE[t] = a + ((info >>> 11) & 31);
    this.tH[t] = ce[e + 6]!;
    this.tLex[t] = ce[e + 7]!;
    this.tFlag[t] = (info >>> 1) & 31;
    this.tCaps[t] = (info >>> 29) & 1;
    this.tSlot[t] = e >>> CHUNK_ENTRY_SHIFT;
    this.tSerial[t] = ce[e + 15]!;
    this.nTok = t + 1;
    return true;
  }

  /** Records in slot e what the ASCII chunk text[a, b) produced (tokens t0.. of this run), when it fits. */
  private chunkStore(text: string, a: number, b: number, e: number, t0: number): void {
    const made = this.nTok - t0;
    if (made > 1) return;
    const ce = this.chunkCache;
    const len = b - a;
    let info = made;
    let serial = 0;
    if (made === 1) {
      const s = this.tS[t0]!;
      const tokLen = this.tE[t0]! - s;
      const flag = this.tFlag[t0]!;
      if (tokLen > CHUNK_MAX_TOKEN || flag > 31) return;
      for (let i = 0; i < tokLen; i++) if (this.cps[s + i]! > 255) return;
      ce.fill(0, e + 9, e + 15);
      for (let i = 0; i < tokLen; i++) ce[e + 9 + (i >> 2)]! |= this.cps[s + i]! << (8 * (i & 3));
      ce[e + 6] = this.tH[t0]!;
      ce[e + 7] = this.tLex[t0]!;
      serial = this.nextSerial();
      this.tSlot[t0] = e >>> CHUNK_ENTRY_SHIFT;
      this.tSerial[t0] = serial;
      info |=
        (flag << 1) |
        ((this.oS[t0]! - a) << 6) |
        ((this.oE[t0]! - a) << 11) |
        (tokLen << 16) |
        (this.cMeta[s]! << 21) |
        ((isAllCaps(text, this.oS[t0]!, this.oE[t0]!) ? 1 : 0) << 29);
    }
    ce[e + 8] = info;
    ce[e + 15] = serial;
    for (let i = 0; i < len; i += 4) ce[e + 1 + (i >> 2)] = packAscii(text, a + i, b);
    ce[e] = this.chunkTag(len);
  }

  /** Entry tag of an ASCII chunk of `len` characters in the current language (never 0: an empty entry). */
  private chunkTag(len: number): number {
    return 1 | (len << 1) | (this.langIdx << 6);
  }

  private nextSerial(): number {
    if (this.serial >= 0x7fffffff) {
      this.serial = 0;
      this.serialEpoch++;
    }
    return ++this.serial;
  }

  private push(c: number, meta: number, os: number, oe: number): void {
    const cls = meta & 15;
    if (cls === C_SEP) {
      this.flush();
      return;
    }
    if (cls === C_EMOJI) {
      this.flush();
      this.append(c, meta, os, oe);
      this.flush();
      return;
    }
    const script = meta >> 4;
    const key = cls === C_LETTER ? (isCjk(script) ? script : 1) : 0;
    if (this.curStart >= 0 && key !== 0 && this.curKey !== 0 && key !== this.curKey) this.flush();
    this.append(c, meta, os, oe);
    if (key !== 0) this.curKey = key;
  }

  private append(c: number, meta: number, os: number, oe: number): void {
    if (this.n >= this.cps.length) this.ensureCps(this.n * 2);
    const n = this.n;
    this.cps[n] = c;
    this.cMeta[n] = meta;
    this.cOS[n] = os;
    this.cOE[n] = oe;
    if (this.curStart < 0) this.curStart = n;
    this.n = n + 1;
  }

  /**
   * Sizes the buffers for texts of up to `chars` UTF-16 units (at most one token per unit), so that they are not
   * reallocated later: replacing a buffer field de-optimises every function the JIT compiled against it.
   */
  reserve(chars: number): void {
    this.ensureCps(chars * 2 + 64);
    this.ensureTok(chars + 1);
    if (this.scratch.length < chars * 2 + 8) this.scratch = new Int32Array(chars * 2 + 8);
  }

  /**
   * Called for every token: the growing is a separate function because a function whose closures capture a local
   * allocates their context on every call, returning early or not (with it inline, tokenizing 32 KB of ASCII words
   * allocated ~250 KB of garbage).
   */
  private ensureCps(size: number): void {
    if (this.cps.length < size) this.growCps(size);
  }

  private growCps(size: number): void {
    const grow = <T extends Int32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.cps = grow(this.cps, (k) => new Int32Array(k));
    this.cMeta = grow(this.cMeta, (k) => new Uint8Array(k));
    this.cOS = grow(this.cOS, (k) => new Int32Array(k));
    this.cOE = grow(this.cOE, (k) => new Int32Array(k));
  }

  /** Called for every token; see ensureCps. */
  private ensureTok(size: number): void {
    if (this.tS.length < size) this.growTok(size);
  }

  private growTok(size: number): void {
    const k = Math.max(size, this.tS.length * 2);
    const g32 = (a: Int32Array) => {
      const b = new Int32Array(k);
      b.set(a);
      return b;
    };
    this.tS = g32(this.tS);
    this.tE = g32(this.tE);
    this.oS = g32(this.oS);
    this.oE = g32(this.oE);
    this.tH = g32(this.tH);
    this.tLex = g32(this.tLex);
    const f = new Uint8Array(k);
    f.set(this.tFlag);
    this.tFlag = f;
    const c = new Int8Array(k);
    c.set(this.tCaps);
    this.tCaps = c;
    this.tSlot = g32(this.tSlot);
    this.tSerial = g32(this.tSerial);
  }

  private flush(): void {
    const s = this.curStart;
    if (s < 0) return;
    this.curStart = -1;
    this.curKey = 0;
    this.finalize(s, this.n);
  }

  /** Writes `len` code points from scratch as the text of a token (appended to the buffer). */
  private writeScratch(len: number): number {
    this.ensureCps(this.n + len + 1);
    const at = this.n;
    this.cps.set(this.scratch.subarray(0, len), at);
    this.cMeta.fill(0, at, at + len);
    this.n = at + len;
    return at;
  }

  private emit(s: number, e: number, os: number, oe: number, flag: number): void {
    const t = this.nTok;
    this.ensureTok(t + 1);
    this.tS[t] = s;
    this.tE[t] = e;
    this.oS[t] = os;
    this.oE[t] = oe;
    this.tFlag[t] = flag;
    this.tCaps[t] = -1;
    this.tSerial[t] = 0;
    const h = hashRange(this.cps, s, e);
    this.tH[t] = h;
    let lex = -1;
    if (this.lex !== null && (flag & (TF_NUMBER | TF_MENTION)) === 0) {
      lex = this.lex.findHashed(h, this.cps, s, e, this.langBit);
      if (lex < 0 && (flag & TF_CJK) !== 0) lex = this.findSubstring(s, e);
    }
    this.tLex[t] = lex;
    this.nTok = t + 1;
  }

  private findSubstring(s: number, e: number): number {
    const lex = this.lex!;
    for (let a = s; a < e - 1; a++) {
      const lim = Math.min(e, a + MAX_CJK_SUB);
      for (let b = lim; b >= a + 2; b--) {
        const hit = lex.find(this.cps, a, b, this.langBit);
        if (hit >= 0) return hit;
      }
    }
    return -1;
  }

  private finalize(s0: number, e0: number): void {
    const cps = this.cps;
    const meta = this.cMeta;
    let s = s0;
    let e = e0;
    const os = this.cOS[s0]!;
    const oe = this.cOE[e0 - 1]!;
    if (e - s === 1 && (meta[s]! & 15) === C_EMOJI) {
      this.emit(s, e, os, oe, TF_EMOJI);
      return;
    }
    let letters = 0;
    let digits = 0;
    let syms = 0;
    let latin = 0;
    let cyrGreek = 0;
    let cyrillic = 0;
    let cjk = 0;
    for (let i = s; i < e; i++) {
      const m = meta[i]!;
      const cls = m & 15;
      if (cls === C_LETTER) {
        letters++;
        const sc = m >> 4;
        if (sc === S_LATIN) latin++;
        else if (sc === S_CYRILLIC || sc === S_GREEK) {
          cyrGreek++;
          if (sc === S_CYRILLIC) cyrillic++;
        } else if (isCjk(sc)) cjk++;
      } else if (cls === C_DIGIT) digits++;
      else if (cls === C_SYM) syms++;
    }
    if (letters === 0) {
      if (digits === 0) return;
      // A number: keep its digits only.
      let w = s;
      for (let i = s; i < e; i++) if ((meta[i]! & 15) === C_DIGIT) cps[w++] = cps[i]!;
      this.emit(s, w, this.cOS[s]!, oe, TF_NUMBER);
      return;
    }
    // Hashtags: drop the '#'. Mentions: '@' followed by letters (unless it decodes to a lexicon word, "@ss").
    while (s < e && cps[s] === HASH) s++;
    // Trailing and leading '!' are punctuation, not leet.
    while (e > s && cps[e - 1] === BANG) e--;
    while (s < e && cps[s] === BANG) s++;
    // "*word*" emphasis
    if (cps[s] === STAR && cps[e - 1] === STAR) {
      while (s < e && cps[s] === STAR) s++;
      while (e > s && cps[e - 1] === STAR) e--;
    }
    if (s >= e) return;
    const tos = this.cOS[s]!;
    const toe = this.cOE[e - 1]!;
    const flag = cjk > 0 ? TF_CJK : 0;

    // Confusables: only in mixed-script tokens, or tokens made only of look-alikes outside Cyrillic text.
    if (cyrGreek > 0) {
      let mappable = true;
      if (latin === 0) {
        for (let i = s; i < e; i++) {
          const sc = meta[i]! >> 4;
          if ((sc === S_CYRILLIC || sc === S_GREEK) && !CONFUSABLES.has(cps[i]!)) {
            mappable = false;
            break;
          }
        }
      }
      if (latin > 0 || (mappable && (cyrillic === 0 || !this.isCyrillicText()))) {
        for (let i = s; i < e; i++) {
          const sc = meta[i]! >> 4;
          if (sc === S_CYRILLIC || sc === S_GREEK) {
            const m = CONFUSABLES.get(cps[i]!);
            if (m !== undefined) {
              cps[i] = m;
              meta[i] = C_LETTER | (S_LATIN << 4);
            }
          }
        }
      }
    }

    const lex = this.lex;
    if (digits + syms > 0 && cjk === 0) {
      const len = e - s;
      if (this.scratch.length < len * 2 + 8) this.scratch = new Int32Array(len * 2 + 8);
      const sc = this.scratch;
      let hasStar = false;
      let interiorOnly = true;
      const mention = cps[s] === AT;
      for (let i = s; i < e; i++) {
        let c = cps[i]!;
        const cls = meta[i]! & 15;
        if (cls === C_DIGIT || cls === C_SYM) {
          if (c === HASH || c === STAR) {
            c = STAR;
            hasStar = true;
          } else c = LEET.get(c) ?? c;
          if (i === s || i === e - 1) interiorOnly = false;
        }
        sc[i - s] = c;
      }
      if (lex !== null && hasStar) {
        const hit = lex.findMasked(sc, 0, len, this.langBit, this.maskOut);
        if (hit >= 0) {
          const term = lex.termCps(hit);
          sc.set(term, 0);
          const at = this.writeScratch(term.length);
          this.emit(at, at + term.length, tos, toe, flag | TF_DECODED);
          return;
        }
      }
      // Drop masks that matched nothing.
      let w = 0;
      for (let i = 0; i < len; i++) if (sc[i] !== STAR) sc[w++] = sc[i]!;
      if (lex !== null && w > 0) {
        if (lex.find(sc, 0, w, this.langBit) >= 0) {
          const at = this.writeScratch(w);
          this.emit(at, at + w, tos, toe, flag | TF_DECODED);
          return;
        }
        const cw = collapse(sc, w, 1);
        if (cw < w && lex.find(sc, 0, cw, this.langBit) >= 0) {
          const at = this.writeScratch(cw);
          this.emit(at, at + cw, tos, toe, flag | TF_DECODED);
          return;
        }
      }
      if (mention) {
        cps[s] = AT;
        this.emit(s, s + 1, tos, toe, TF_MENTION);
        return;
      }
      if (interiorOnly && w > 0) {
        // Re-map (collapse above may have shortened scratch): rebuild from the token.
        let k = 0;
        for (let i = s; i < e; i++) {
          let c = cps[i]!;
          const cls = meta[i]! & 15;
          if (cls === C_DIGIT || cls === C_SYM) {
            if (c === HASH || c === STAR) continue;
            c = LEET.get(c) ?? c;
          }
          cps[s + k++] = c;
        }
        e = s + k;
      } else {
        // Keep digits, drop symbols ("10am", "mp3").
        let k = s;
        for (let i = s; i < e; i++) if ((meta[i]! & 15) !== C_SYM) cps[k++] = cps[i]!;
        e = k;
      }
      if (e <= s) return;
    }

    // Repeated letters: "fuuuuck" → "fuuck" (or "fuck" when that is a lexicon word).
    let hasRun = false;
    for (let i = s + 2; i < e; i++) {
      if (cps[i] === cps[i - 1] && cps[i] === cps[i - 2]) {
        hasRun = true;
        break;
      }
    }
    if (hasRun) {
      const len = e - s;
      if (this.scratch.length < len + 8) this.scratch = new Int32Array(len * 2 + 8);
      const sc = this.scratch;
      for (let i = 0; i < len; i++) sc[i] = cps[s + i]!;
      const l2 = collapse(sc, len, 2);
      let useLen = l2;
      let decoded = false;
      if (lex !== null && lex.find(sc, 0, l2, this.langBit) < 0) {
        const l1 = collapse(sc, l2, 1);
        if (lex.find(sc, 0, l1, this.langBit) >= 0) {
          useLen = l1;
          decoded = true;
        } else {
          for (let i = 0; i < len; i++) sc[i] = cps[s + i]!;
          collapse(sc, len, 2);
        }
      }
      for (let i = 0; i < useLen; i++) cps[s + i] = sc[i]!;
      e = s + useLen;
      this.emit(s, e, tos, toe, flag | (decoded ? TF_DECODED : 0));
      return;
    }
    this.emit(s, e, tos, toe, flag);
  }

  /** "f u c k", "f.u.c.k", "f-u-c-k": three or more single letters separated by at most 3 characters. */
  private joinSpacedLetters(text: string): void {
    const nTok = this.nTok;
    if (nTok < 3) return;
    const { tS, tE, oS, oE, tFlag } = this;
    let w = 0;
    let i = 0;
    while (i < nTok) {
      let j = i;
      if (tE[i]! - tS[i]! === 1 && tFlag[i] === 0 && isSingleLetter(this.cMetaOf(tS[i]!))) {
        while (
          j + 1 < nTok &&
          tE[j + 1]! - tS[j + 1]! === 1 &&
          tFlag[j + 1] === 0 &&
          oS[j + 1]! - oE[j]! <= 3 &&
          !hasNewline(text, oE[j]!, oS[j + 1]!)
        )
          j++;
      }
      if (j - i >= 2) {
        const len = j - i + 1;
        if (this.scratch.length < len + 8) this.scratch = new Int32Array(len * 2 + 8);
        for (let k = 0; k < len; k++) this.scratch[k] = this.cps[tS[i + k]!]!;
        let l = len;
        const lex = this.lex;
        if (lex !== null && lex.find(this.scratch, 0, l, this.langBit) < 0) {
          const l1 = collapse(this.scratch, l, 1);
          if (lex.find(this.scratch, 0, l1, this.langBit) >= 0) l = l1;
          else for (let k = 0; k < len; k++) this.scratch[k] = this.cps[tS[i + k]!]!;
        }
        const at = this.writeScratch(l);
        const os = oS[i]!;
        const oe = oE[j]!;
        const save = this.nTok;
        this.nTok = w;
        this.emit(at, at + l, os, oe, TF_DECODED);
        this.nTok = save;
        w++;
        i = j + 1;
      } else {
        if (w !== i) this.moveTok(i, w);
        w++;
        i++;
      }
    }
    this.nTok = w;
  }

  private cMetaOf(i: number): number {
    return this.cMeta[i] ?? 0;
  }

  private moveTok(from: number, to: number): void {
    this.tS[to] = this.tS[from]!;
    this.tE[to] = this.tE[from]!;
    this.oS[to] = this.oS[from]!;
    this.oE[to] = this.oE[from]!;
    this.tH[to] = this.tH[from]!;
    this.tLex[to] = this.tLex[from]!;
    this.tFlag[to] = this.tFlag[from]!;
    this.tCaps[to] = this.tCaps[from]!;
    this.tSlot[to] = this.tSlot[from]!;
    this.tSerial[to] = this.tSerial[from]!;
  }

  /** Normalised text of token t (allocates; for debugging and training only). */
  tokenText(t: number): string {
    return String.fromCodePoint(...this.cps.subarray(this.tS[t]!, this.tE[t]!));
  }
}

/**
 * Whether text[a, b) is an ALL-CAPS word ("FREE", "WINNER"): at least two characters, at least two ASCII capitals
 * and no ASCII lower-case letter. A spam and shouting cue lost by lower-casing (a hashed feature).
 */
export function isAllCaps(text: string, a: number, b: number): boolean {
  if (b - a < 2) return false;
  let up = 0;
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) up++;
    else if (c >= 97 && c <= 122) return false;
  }
  return up >= 2;
}

function isSingleLetter(meta: number): boolean {
  const sc = meta >> 4;
  return (meta & 15) === C_LETTER && (sc === S_LATIN || sc === S_CYRILLIC || sc === S_GREEK);
}

function hasNewline(text: string, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return true;
  }
  return false;
}

/** Collapses runs longer than `max` of the same code point in buf[0:len); returns the new length. */
function collapse(buf: Int32Array, len: number, max: number): number {
  let w = 0;
  let run = 0;
  for (let i = 0; i < len; i++) {
    const c = buf[i]!;
    if (w > 0 && buf[w - 1] === c) {
      run++;
      if (run >= max) continue;
    } else run = 0;
    buf[w++] = c;
  }
  return w;
}

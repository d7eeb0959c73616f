import { fmix, hashRange, hashString } from './hash.ts';

/** Serialised lexicon as stored in the weights header. Terms are already normalised; phrases use spaces. */
export interface LexiconData {
  terms: string[];
  flags: number[];
  langs: number[];
}

const STAR = 0x2a;
const PHRASE_BITS_MASK = (1 << 14) - 1;

/**
 * Exact-match lexicon over normalised tokens. Single tokens are looked up by hash (verified against the stored
 * code points, so there are no false hits); multi-token phrases are indexed by the hash of their first token.
 */
export class Lexicon {
  readonly size: number;
  readonly flags: Int32Array;
  readonly langs: Int32Array;
  readonly terms: readonly string[];
  private readonly cps: Int32Array[];
  /** token hash → last entry with that hash (earlier ones chained through `next`) */
  private readonly byHash: IntTable;
  private readonly next: Int32Array;
  /** first-token hash → phrase entries; each phrase is its token hashes */
  private readonly phraseLists: { entry: number; hashes: Int32Array }[][] = [];
  /** one bit per (hash & PHRASE_BITS_MASK) of a phrase's first token: most tokens start no phrase */
  private readonly phraseBits = new Uint32Array((PHRASE_BITS_MASK + 1) >>> 5);
  /** first-token hash → index into phraseLists */
  private readonly phrases: IntTable;
  /** length*0x110000+first code point → single-token entries, for masked-word matching */
  private readonly byShape = new Map<number, number[]>();
  readonly maxPhraseTokens: number;

  constructor(data: LexiconData) {
    this.size = data.terms.length;
    this.terms = data.terms;
    this.flags = Int32Array.from(data.flags);
    this.langs = Int32Array.from(data.langs);
    this.cps = [];
    this.next = new Int32Array(this.size).fill(-1);
    this.byHash = new IntTable(this.size);
    this.phrases = new IntTable(this.size);
    let maxPhrase = 1;
    for (let i = 0; i < this.size; i++) {
      const term = data.terms[i]!;
      const parts = term.split(' ');
      if (parts.length === 1) {
        const cps = Int32Array.from([...term].map((c) => c.codePointAt(0)!));
        this.cps.push(cps);
        const h = hashRange(cps, 0, cps.length);
        this.next[i] = this.byHash.get(h);
        this.byHash.set(h, i);
        const shape = cps.length * 0x110000 + cps[0]!;
        const list = this.byShape.get(shape);
        if (list) list.push(i);
        else this.byShape.set(shape, [i]);
      } else {
        this.cps.push(new Int32Array(0));
        maxPhrase = Math.max(maxPhrase, parts.length);
        const hashes = Int32Array.from(parts.map(hashString));
        const first = hashes[0]!;
        const item = { entry: i, hashes };
        this.phraseBits[(first & PHRASE_BITS_MASK) >>> 5]! |= 1 << (first & 31);
        const at = this.phrases.get(first);
        if (at >= 0) this.phraseLists[at]!.push(item);
        else this.phrases.set(first, this.phraseLists.push([item]) - 1);
      }
    }
    this.maxPhraseTokens = maxPhrase;
  }

  /** Entry index of the token cps[start:end) for a language bit, or -1. */
  find(cps: Int32Array, start: number, end: number, lang: number): number {
    return this.findHashed(hashRange(cps, start, end), cps, start, end, lang);
  }

  findHashed(h: number, cps: Int32Array, start: number, end: number, lang: number): number {
    let i = this.byHash.get(h);
    const len = end - start;
    while (i >= 0) {
      const t = this.cps[i]!;
      if ((this.langs[i]! & lang) !== 0 && t.length === len) {
        let ok = true;
        for (let k = 0; k < len; k++) {
          if (t[k] !== cps[start + k]) {
            ok = false;
            break;
          }
        }
        if (ok) return i;
      }
      i = this.next[i]!;
    }
    return -1;
  }

  /**
   * Matches a token containing '*' masks (each '*' stands for one letter; a run of k stars may also stand for
   * k+1 letters, e.g. "f**k", "f*k"). Entries are tried in lexicon order, which the trainer sorts by how common
   * a word is, so "sh*t" resolves to "shit" before "shot"-like rarities. The first letter must be unmasked.
   */
  findMasked(cps: Int32Array, start: number, end: number, lang: number, out: { len: number }): number {
    const first = cps[start]!;
    if (first === STAR) return -1;
    const len = end - start;
    for (let extra = 0; extra <= 1; extra++) {
      const list = this.byShape.get((len + extra) * 0x110000 + first);
      if (!list) continue;
      let best = -1;
      for (const i of list) {
        if ((this.langs[i]! & lang) === 0) continue;
        if (matchMask(cps, start, end, this.cps[i]!, extra) && (best < 0 || i < best)) best = i;
      }
      if (best >= 0) {
        out.len = len + extra;
        return best;
      }
    }
    return -1;
  }

  phrasesStartingWith(h: number): { entry: number; hashes: Int32Array }[] | undefined {
    if ((this.phraseBits[(h & PHRASE_BITS_MASK) >>> 5]! & (1 << (h & 31))) === 0) return undefined;
    const at = this.phrases.get(h);
    return at < 0 ? undefined : this.phraseLists[at];
  }

  termCps(i: number): Int32Array {
    return this.cps[i]!;
  }
}

function matchMask(cps: Int32Array, start: number, end: number, term: Int32Array, extra: number): boolean {
  // extra = 0: every star is one letter. extra = 1: exactly one star run absorbs one more letter.
  let k = 0;
  let used = extra === 0;
  for (let i = start; i < end; i++) {
    const c = cps[i]!;
    if (c === STAR) {
      if (k >= term.length) return false;
      k++;
      if (!used && (i + 1 === end || cps[i + 1] !== STAR)) {
        if (k >= term.length) return false;
        k++;
        used = true;
      }
    } else {
      if (term[k] !== c) return false;
      k++;
    }
  }
  return k === term.length && used;
}

/**
 * int32 key → non-negative int32 value, open addressing (a Map with number keys boxes hashes outside the small-integer
 * range, and this lookup runs for every token).
 */
class IntTable {
  /** [key, value] pairs side by side: one cache line per probe */
  private readonly kv: Int32Array;
  private readonly mask: number;

  constructor(capacity: number) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.kv = new Int32Array(2 * n);
    for (let i = 1; i < 2 * n; i += 2) this.kv[i] = -1;
    this.mask = n - 1;
  }

  /** The value of key k, or -1. */
  get(k: number): number {
    const kv = this.kv;
    for (let s = fmix(k) & this.mask; ; s = (s + 1) & this.mask) {
      const v = kv[2 * s + 1]!;
      if (v < 0 || kv[2 * s] === k) return v;
    }
  }

  set(k: number, v: number): void {
    const kv = this.kv;
    let s = fmix(k) & this.mask;
    while (kv[2 * s + 1]! >= 0 && kv[2 * s] !== k) s = (s + 1) & this.mask;
    kv[2 * s] = k;
    kv[2 * s + 1] = v;
  }
}

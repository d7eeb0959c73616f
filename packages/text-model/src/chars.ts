/**
 * Per-code-point normalisation table: NFKC, lower case, Latin diacritics stripped, zero-width/format and
 * combining marks dropped, Arabic orthographic variants unified. Results are cached lazily so each code point
 * pays the `String.prototype.normalize` cost once per process.
 */

export const C_SEP = 0;
export const C_LETTER = 1;
export const C_DIGIT = 2;
export const C_SYM = 3; // leet / mask symbols: @ $ ! * #
export const C_EMOJI = 4;
export const C_DROP = 5;

export const S_OTHER = 0;
export const S_LATIN = 1;
export const S_CYRILLIC = 2;
export const S_GREEK = 3;
export const S_HAN = 4;
export const S_HIRAGANA = 5;
export const S_KATAKANA = 6;
export const S_HANGUL = 7;

/** A normalised code point sequence: cps[i] with meta[i] = class | (script << 4). */
export interface CharRec {
  cps: Int32Array;
  meta: Uint8Array;
}

const DROP: CharRec = { cps: new Int32Array(0), meta: new Uint8Array(0) };

const RE_LETTER = /[\p{L}\p{M}]/u;
const RE_EMOJI = /\p{Extended_Pictographic}/u;
const RE_LATIN = /\p{Script=Latin}/u;
const RE_CYR = /\p{Script=Cyrillic}/u;
const RE_GREEK = /\p{Script=Greek}/u;
const RE_HAN = /\p{Script=Han}/u;
const RE_HIRA = /\p{Script=Hiragana}/u;
const RE_KATA = /\p{Script=Katakana}/u;
const RE_HANGUL = /\p{Script=Hangul}/u;
const RE_FORMAT = /[\p{Cf}\p{Cc}]/u;

const EXTRA_MAP: Record<number, number> = {
  305: 0x69, // ı → i
  593: 0x61, // ɑ → a
  609: 0x67, // ɡ → g
  1405: 0x75, // Armenian ս → u
  1413: 0x6f, // Armenian օ → o
  1392: 0x68, // Armenian հ → h
  1409: 0x67, // Armenian ց → g
  1571: 0x0627, // أ → ا
  1573: 0x0627, // إ → ا
  1570: 0x0627, // آ → ا
  1649: 0x0627, // ٱ → ا
  1609: 0x064a, // ى → ي
  1577: 0x0647, // ة → ه
};

function isDropped(cp: number): boolean {
  return (
    (cp >= 0x0300 && cp <= 0x036f) || // combining diacritics (zalgo)
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe20 && cp <= 0xfe2f) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) || // variation selectors
    (cp >= 0xe0100 && cp <= 0xe01ef) ||
    (cp >= 0x1f3fb && cp <= 0x1f3ff) || // skin tones
    (cp >= 0x064b && cp <= 0x065f) || // Arabic harakat
    cp === 0x0670 ||
    cp === 0x0640 || // tatweel
    cp === 0x00ad || // soft hyphen
    cp === 0x034f ||
    cp === 0x180e ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2069) ||
    cp === 0xfeff
  );
}

function scriptOf(ch: string): number {
  if (RE_LATIN.test(ch)) return S_LATIN;
  if (RE_CYR.test(ch)) return S_CYRILLIC;
  if (RE_GREEK.test(ch)) return S_GREEK;
  if (RE_HAN.test(ch)) return S_HAN;
  if (RE_HIRA.test(ch)) return S_HIRAGANA;
  if (RE_KATA.test(ch)) return S_KATAKANA;
  if (RE_HANGUL.test(ch)) return S_HANGUL;
  return S_OTHER;
}

function classify(cp: number): [number, number] {
  if (cp >= 0x30 && cp <= 0x39) return [C_DIGIT, S_OTHER];
  if (cp === 0x40 || cp === 0x24 || cp === 0x21 || cp === 0x2a || cp === 0x23) return [C_SYM, S_OTHER];
  const ch = String.fromCodePoint(cp);
  if (RE_LETTER.test(ch)) return [C_LETTER, scriptOf(ch)];
  if (RE_EMOJI.test(ch)) return [C_EMOJI, S_OTHER];
  if (RE_FORMAT.test(ch) && cp !== 0x0a && cp !== 0x09 && cp !== 0x0d) return [C_DROP, S_OTHER];
  return [C_SEP, S_OTHER];
}

function compute(cp: number): CharRec {
  if (isDropped(cp)) return DROP;
  const s = String.fromCodePoint(cp);
  const t = s
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC');
  const cps: number[] = [];
  const meta: number[] = [];
  for (const ch of t) {
    let c = ch.codePointAt(0)!;
    if (isDropped(c)) continue;
    c = EXTRA_MAP[c] ?? c;
    const [cls, script] = classify(c);
    if (cls === C_DROP) continue;
    cps.push(cls === C_SEP ? 0x20 : c);
    meta.push(cls | (script << 4));
  }
  if (cps.length === 0) return DROP;
  return { cps: Int32Array.from(cps), meta: Uint8Array.from(meta) };
}

// BMP fast path: single-code-point results live in typed arrays; -1 = not computed, -2 = see `multi`.
const bmpCp = new Int32Array(0x10000).fill(-1);
const bmpMeta = new Uint8Array(0x10000);
const multi = new Map<number, CharRec>();

const DROP_MARK = -3;

/**
 * Looks up the normalised form of one code point. Returns the mapped code point (>= 0) and writes its meta into
 * `out[0]`, or returns -2 when the result has several code points (then `out` is untouched; call `charRec`),
 * or DROP_MARK when the code point is removed.
 */
export function mapChar(cp: number, out: Uint8Array): number {
  if (cp < 0x10000) {
    let v = bmpCp[cp]!;
    if (v === -1) {
      const rec = compute(cp);
      if (rec.cps.length === 0) v = DROP_MARK;
      else if (rec.cps.length === 1) {
        v = rec.cps[0]!;
        bmpMeta[cp] = rec.meta[0]!;
      } else {
        v = -2;
        multi.set(cp, rec);
      }
      bmpCp[cp] = v;
    }
    if (v >= 0) out[0] = bmpMeta[cp]!;
    return v;
  }
  let rec = multi.get(cp);
  if (rec === undefined) {
    rec = compute(cp);
    multi.set(cp, rec);
  }
  if (rec.cps.length === 0) return DROP_MARK;
  if (rec.cps.length === 1) {
    out[0] = rec.meta[0]!;
    return rec.cps[0]!;
  }
  return -2;
}

export const MAP_DROP = DROP_MARK;
export const MAP_MULTI = -2;

export function charRec(cp: number): CharRec {
  return multi.get(cp) ?? DROP;
}

/**
 * Cyrillic and Greek letters that look like Latin ones (after lower-casing). Applied only inside tokens that
 * mix scripts (or, outside Russian text, to tokens made only of look-alikes), so Russian words stay intact.
 */
export const CONFUSABLES: ReadonlyMap<number, number> = new Map(
  (
    [
      ['а', 'a'],
      ['в', 'b'],
      ['е', 'e'],
      ['ё', 'e'],
      ['к', 'k'],
      ['м', 'm'],
      ['н', 'h'],
      ['о', 'o'],
      ['р', 'p'],
      ['с', 'c'],
      ['т', 't'],
      ['у', 'y'],
      ['х', 'x'],
      ['ѕ', 's'],
      ['і', 'i'],
      ['ї', 'i'],
      ['ј', 'j'],
      ['ԁ', 'd'],
      ['ӏ', 'l'],
      ['һ', 'h'],
      ['ԛ', 'q'],
      ['ԝ', 'w'],
      ['ь', 'b'],
      ['α', 'a'],
      ['β', 'b'],
      ['γ', 'y'],
      ['ε', 'e'],
      ['ζ', 'z'],
      ['η', 'n'],
      ['ι', 'i'],
      ['κ', 'k'],
      ['μ', 'u'],
      ['ν', 'v'],
      ['ο', 'o'],
      ['ρ', 'p'],
      ['τ', 't'],
      ['υ', 'u'],
      ['χ', 'x'],
      ['ω', 'w'],
      ['ϲ', 'c'],
    ] as const
  ).map(([a, b]) => [a.codePointAt(0)!, b.codePointAt(0)!]),
);

/** Leet digits and symbols → letters. */
export const LEET: ReadonlyMap<number, number> = new Map(
  (
    [
      ['4', 'a'],
      ['@', 'a'],
      ['3', 'e'],
      ['1', 'i'],
      ['!', 'i'],
      ['0', 'o'],
      ['$', 's'],
      ['5', 's'],
      ['7', 't'],
    ] as const
  ).map(([a, b]) => [a.codePointAt(0)!, b.codePointAt(0)!]),
);

/**
 * A letter of the Russian alphabet that looks like no Latin one (б, д, ж, и, л, я …; either case). A text with one
 * is Cyrillic writing, not Latin writing disguised with look-alikes, so its all-look-alike words ("не", "он", "тот")
 * stay Russian whatever language was declared: mapped, "не" read as the English "he" and a Russian threat sent
 * without `language` was taken for English.
 */
export const RUSSIAN_LETTER: RegExp = (() => {
  let cls = '';
  for (let cp = 0x410; cp <= 0x44f; cp++) {
    if (!CONFUSABLES.has(String.fromCodePoint(cp).toLowerCase().codePointAt(0)!))
      cls += String.fromCodePoint(cp);
  }
  return new RegExp(`[${cls}]`);
})();

import type { LexiconData } from './lexicon.ts';

export interface Rule {
  head: number;
  flag: number;
  langs: number;
  p: number;
}

const MAGIC = 0x314d5456; // "VTM1" little-endian

/** Everything except the hashed weight matrix; stored as JSON in the file header. */
export interface WeightsHeader {
  format: 1;
  modelVersion: string;
  bits: number;
  heads: string[];
  window: number;
  stride: number;
  bias: number[];
  /** dense[d][k]: weight of dense feature d for head k */
  dense: number[][];
  /** Platt scaling per head: p = sigmoid(a * z + b) (pooled over languages) */
  platt: [number, number][];
  /** per-language Platt rows (every head), for languages with enough calibration data; others use `platt` */
  plattByLang?: Partial<Record<string, [number, number][]>>;
  /** weights of the text-level spam cues (SPAM_CUES order), added to the spam head's logit; optional */
  spamCues?: number[];
  /**
   * Spam calibration by text length (optional; overrides platt[spam]): `short` for texts of at most
   * `shortMaxChars` UTF-16 units (SMS, chat, comments), `long` otherwise (e-mail).
   */
  spamPlatt?: { shortMaxChars: number; short: [number, number]; long: [number, number] };
  /**
   * Dedicated spam model (optional; src/spam-features.ts): its logit, bias + cue weights · SPAM_CUES + the
   * 2^bits float16 weights stored after the shared hashed matrix, is added to the spam head's logit. `charGrams`:
   * char n-gram lengths as bits 1 << n (default 3-5-grams; 0 = word features only).
   */
  spamModel?: { bits: number; charGrams?: number; bias: number; cues: number[] };
  /**
   * Documented rule floors (max-combination): when the text's tokens carry all bits of `flag` and the language is in
   * `langs`, the head's probability is at least `p`.
   */
  rules: Rule[];
  lexicon: LexiconData;
  training: Record<string, unknown>;
}

export interface Weights {
  header: WeightsHeader;
  /** hashed weights, layout [bucket * nHeads + head] */
  hashed: Float32Array;
  /** weights of the dedicated spam model (present iff header.spamModel) */
  spamHashed?: Float32Array;
}

// float16 conversion (IEEE 754 half, round-to-nearest-even), deterministic.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function toHalf(v: number): number {
  f32[0] = v;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1) === 1)) half++;
  exp = half >>> 10;
  if (exp >= 31) return sign | 0x7c00;
  return sign | half;
}

let halfTable: Float32Array | null = null;
function getHalfTable(): Float32Array {
  if (halfTable) return halfTable;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    let v: number;
    if (exp === 0) v = mant * 2 ** -24;
    else if (exp === 31) v = mant ? Number.NaN : Number.POSITIVE_INFINITY;
    else v = (1 + mant / 1024) * 2 ** (exp - 15);
    t[h] = sign * v;
  }
  halfTable = t;
  return t;
}

export function fromHalf(h: number): number {
  return getHalfTable()[h]!;
}

/**
 * A weights file: magic, header length, the header as JSON (padded with spaces to 4 bytes), then every array of
 * `arrays` in turn as float16. Shared by both stages' files.
 */
export function encodeFile(magic: number, header: unknown, arrays: Float32Array[]): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLen = json.length;
  const pad = (4 - ((8 + headerLen) % 4)) % 4;
  const total = arrays.reduce((s, a) => s + a.length, 0);
  const buf = new Uint8Array(8 + headerLen + pad + total * 2);
  const dv = new DataView(buf.buffer);
  dv.setUint32(0, magic, true);
  dv.setUint32(4, headerLen + pad, true);
  buf.set(json, 8);
  buf.fill(0x20, 8 + headerLen, 8 + headerLen + pad);
  let off = 8 + headerLen + pad;
  for (const a of arrays) {
    for (let i = 0; i < a.length; i++) dv.setUint16(off + i * 2, toHalf(a[i]!), true);
    off += a.length * 2;
  }
  return buf;
}

/** The header of a file made by encodeFile and the offset of its first array; `what` names the file in errors. */
export function decodeHeader<H>(buf: Uint8Array, magic: number, what: string): { header: H; off: number } {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (dv.getUint32(0, true) !== magic) throw new Error(`not a Verdict ${what} file`);
  const headerLen = dv.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + headerLen))) as H;
  return { header, off: 8 + headerLen };
}

export function encodeWeights(w: Weights): Uint8Array {
  return encodeFile(MAGIC, w.header, w.spamHashed ? [w.hashed, w.spamHashed] : [w.hashed]);
}

export function decodeWeights(buf: Uint8Array): Weights {
  const { header, off } = decodeHeader<WeightsHeader>(buf, MAGIC, 'text-model weights');
  const n = (1 << header.bits) * header.heads.length;
  const ns = header.spamModel ? 1 << header.spamModel.bits : 0;
  if (buf.byteLength < off + (n + ns) * 2) throw new Error('weights file is truncated');
  const hashed = readHalves(buf, off, n);
  if (ns === 0) return { header, hashed };
  return { header, hashed, spamHashed: readHalves(buf, off + n * 2, ns) };
}

/** n float16 values (little-endian) from buf at byte offset off, as float32. */
export function readHalves(buf: Uint8Array, off: number, n: number): Float32Array {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const table = getHalfTable();
  const out = new Float32Array(n);
  // Copy into an aligned Uint16Array view when possible (fast path), else read via DataView.
  if ((buf.byteOffset + off) % 2 === 0) {
    const halves = new Uint16Array(buf.buffer, buf.byteOffset + off, n);
    for (let i = 0; i < n; i++) out[i] = table[halves[i]!]!;
  } else {
    for (let i = 0; i < n; i++) out[i] = table[dv.getUint16(off + i * 2, true)]!;
  }
  return out;
}

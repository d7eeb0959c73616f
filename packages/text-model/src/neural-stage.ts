/**
 * Third stage: a small neural network applied to the texts the gate sends to the second stage (src/context-model.ts),
 * so the common benign text stays on the fast path.
 *
 * The first two stages are linear in their features, so they cannot represent interactions ("group term AND violent
 * predicate", "slur inside a condemned quote"). This stage is an embedding bag (hashed normalised unigrams, optionally
 * adjacent pairs, and lexicon classes of the tokens, any language), mean-pooled, one hidden ReLU layer that also reads
 * the second stage's verdicts, and one logit per head but spam. Its logit z3 is added to the second stage's combined
 * logit z1 + mix * z2 of each head's best window (one window for texts up to 64 tokens), and gated texts are then
 * calibrated with this stage's Platt rows.
 */
import { createHash } from 'node:crypto';
import { plattTable } from './calibration.ts';
import { N_HEADS, SUPPORTED_LANGUAGES } from './constants.ts';
import { CLASS_MASK } from './context-model.ts';
import { fmix } from './hash.ts';
import { decodeHeader, encodeFile, readHalves } from './weights.ts';

const S_UNI = 0x2f1e8d3b;
const S_BI = 0x6c8e9cf5;
const S_CLS = 0x4a7484aa;
const K = 0x9e3779b1 | 0;

/** Most features one token has (see neuralFeatures). */
export const MAX_NEURAL_FEATURES = 3;

/**
 * The features of token t of the window ending at b (bucket indices, `shift` = 32 - bits) into out[w..]; returns the
 * new w: its unigram, the pair with the next token inside the window (with `pairs`), and its lexicon class. Trainer
 * and runtime share it.
 */
export function neuralFeatures(
  tH: Int32Array,
  flags: Int32Array,
  b: number,
  t: number,
  shift: number,
  out: Int32Array,
  w0: number,
  pairs: boolean,
): number {
  let w = w0;
  const h = tH[t]!;
  out[w++] = fmix(h ^ S_UNI) >>> shift;
  if (pairs && t + 1 < b) out[w++] = fmix(Math.imul(h, K) ^ tH[t + 1]! ^ S_BI) >>> shift;
  const cls = flags[t]! & CLASS_MASK;
  if (cls !== 0) out[w++] = fmix(Math.imul(cls, K) ^ S_CLS) >>> shift;
  return w;
}

/**
 * The third stage's gate: whether one of `heads` reaches probability gateP with logits z and calibration `platt`
 * (flat [a, b] per head); every text passes a gate of 0.
 */
export function reachesGate(
  z: Float64Array,
  platt: Float64Array,
  heads: ArrayLike<number>,
  gateP: number,
): boolean {
  if (gateP <= 0) return true;
  for (let i = 0; i < heads.length; i++) {
    const k = heads[i]!;
    if (1 / (1 + Math.exp(-(platt[2 * k]! * z[k]! + platt[2 * k + 1]!))) >= gateP) return true;
  }
  return false;
}

export interface NeuralHeader {
  format: 1;
  bits: number;
  /** whether the features include each token's pair with the next one (unigrams and lexicon classes always) */
  pairs: boolean;
  /** embedding width and hidden units */
  dim: number;
  hidden: number;
  /** the heads this stage adds a logit to (TEXT_CATEGORIES indices) */
  heads: number[];
  /** the hidden layer also reads sigmoid(z1 + mix * z2) of each of `heads` (weights wz) */
  logitInputs?: boolean;
  /**
   * How much of this stage's logit a gated text gets, per language and head (z = z12 + mix * z3): 1 unless a labelled
   * dataset of that language showed on its calibration split that less does better (as the second stage's mixByLang).
   */
  mixByLang?: Partial<Record<string, number[]>>;
  /** calibration of gated texts: p = sigmoid(a * (z12 + mix * z3) + b) per head (replaces the second stage's) */
  platt: [number, number][];
  plattByLang?: Partial<Record<string, [number, number][]>>;
  /**
   * A gated text goes on to this stage when a head it scores reaches this probability after the second stage (0: every
   * gated text): texts the second stage finds clearly harmless stay on the faster path.
   */
  gateP?: number;
  /**
   * contextFingerprint of the second stage's weights file this stage was trained and calibrated on (its header holds
   * that stage's biases and calibration, which differ between any two trainings)
   */
  contextFingerprint?: string;
  training: Record<string, unknown>;
}

/** Parameters, float32 in memory and float16 in the file, in this order. */
export interface NeuralWeights {
  header: NeuralHeader;
  /** [bucket * dim + d] */
  emb: Float32Array;
  /** [j * dim + d] */
  w1: Float32Array;
  b1: Float32Array;
  /** [i * hidden + j], i indexing header.heads */
  w2: Float32Array;
  b2: Float32Array;
  /** [j * heads.length + i] when header.logitInputs, else empty */
  wz: Float32Array;
}

const MAGIC = 0x334d5456; // "VTM3"

/**
 * sha256 (hex) of a second-stage weights file's header (magic, length and JSON): cheap at load, unlike hashing the
 * whole 17 MB file (~50-190 ms).
 */
export function contextFingerprint(contextFile: Uint8Array): string {
  const dv = new DataView(contextFile.buffer, contextFile.byteOffset, contextFile.byteLength);
  return createHash('sha256')
    .update(contextFile.subarray(0, 8 + dv.getUint32(4, true)))
    .digest('hex');
}

export function encodeNeuralWeights(w: NeuralWeights): Uint8Array {
  return encodeFile(MAGIC, w.header, [w.emb, w.w1, w.b1, w.w2, w.b2, w.wz]);
}

export function decodeNeuralWeights(buf: Uint8Array): NeuralWeights {
  const { header, off } = decodeHeader<NeuralHeader>(buf, MAGIC, 'neural-stage weights');
  const { dim, hidden } = header;
  const nh = header.heads.length;
  const sizes = [
    (1 << header.bits) * dim,
    hidden * dim,
    hidden,
    nh * hidden,
    nh,
    header.logitInputs ? hidden * nh : 0,
  ];
  if (buf.byteLength < off + sizes.reduce((s, n) => s + n, 0) * 2)
    throw new Error('neural-stage weights file is truncated');
  let o = off;
  const [emb, w1, b1, w2, b2, wz] = sizes.map((n) => {
    const a = readHalves(buf, o, n);
    o += n * 2;
    return a;
  }) as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  return { header, emb, w1, b1, w2, b2, wz };
}

export class NeuralStage {
  readonly shift: number;
  readonly dim: number;
  readonly hidden: number;
  readonly heads: Int32Array;
  readonly pairs: boolean;
  /** calibration of gated texts per language (SUPPORTED_LANGUAGES index), flat [a, b] per head */
  readonly plattLang: Float64Array[];
  /** per language (SUPPORTED_LANGUAGES index): the share of z3 per head */
  readonly mixLang: Float64Array[];
  /** probability after the second stage that a head must reach for a gated text to go on to this stage */
  readonly gateP: number;
  /** this stage's logits of the last window evaluated, per head (0 for heads it does not score) */
  readonly z3 = new Float64Array(N_HEADS);
  /** mean-pooled embedding and hidden activations of the last window (the trainer reads them) */
  readonly pooled: Float64Array;
  readonly act: Float64Array;
  private readonly w: NeuralWeights;
  private readonly feat = new Int32Array(MAX_NEURAL_FEATURES);
  private readonly zin = new Float64Array(N_HEADS);
  private readonly winA = new Int32Array(N_HEADS);
  private readonly winB = new Int32Array(N_HEADS);
  /** combined logits after apply() */
  readonly z = new Float64Array(N_HEADS);

  constructor(w: NeuralWeights) {
    this.w = w;
    const h = w.header;
    this.shift = 32 - h.bits;
    this.dim = h.dim;
    this.hidden = h.hidden;
    this.heads = Int32Array.from(h.heads);
    this.pairs = h.pairs;
    this.gateP = h.gateP ?? 0;
    this.plattLang = plattTable(h.platt, h.plattByLang);
    this.mixLang = SUPPORTED_LANGUAGES.map((l) =>
      Float64Array.from(h.mixByLang?.[l] ?? new Array(N_HEADS).fill(1)),
    );
    this.pooled = new Float64Array(h.dim);
    this.act = new Float64Array(h.hidden);
  }

  /**
   * Whether a gated text goes on to this stage: a head it scores reaches gateP with the second stage's logits z12 and
   * calibration `platt` (flat [a, b] per head).
   */
  reaches(z12: Float64Array, platt: Float64Array): boolean {
    return reachesGate(z12, platt, this.heads, this.gateP);
  }

  /**
   * This stage's logits of the token window [a, b) into z3 (z12: the first two stages' logits, read when the hidden
   * layer takes them as inputs); returns the window's feature count.
   */
  window(tH: Int32Array, flags: Int32Array, a: number, b: number, z12: Float64Array): number {
    const { emb, w1, b1, w2, b2, wz } = this.w;
    const D = this.dim;
    const H = this.hidden;
    const e = this.pooled;
    const f = this.feat;
    e.fill(0);
    let cnt = 0;
    for (let t = a; t < b; t++) {
      const m = neuralFeatures(tH, flags, b, t, this.shift, f, 0, this.pairs);
      for (let i = 0; i < m; i++) {
        const r = f[i]! * D;
        for (let d = 0; d < D; d++) e[d]! += emb[r + d]!;
      }
      cnt += m;
    }
    const inv = cnt > 0 ? 1 / cnt : 0;
    for (let d = 0; d < D; d++) e[d]! *= inv;

    const act = this.act;
    const heads = this.heads;
    const nz = wz.length > 0 ? heads.length : 0;
    const zin = this.zin;
    for (let i = 0; i < nz; i++) zin[i] = 1 / (1 + Math.exp(-z12[heads[i]!]!));
    for (let j = 0; j < H; j++) {
      let v: number = b1[j]!;
      const r = j * D;
      for (let d = 0; d < D; d++) v += w1[r + d]! * e[d]!;
      for (let i = 0; i < nz; i++) v += wz[j * nz + i]! * zin[i]!;
      act[j] = v > 0 ? v : 0;
    }
    const z3 = this.z3;
    for (let i = 0; i < heads.length; i++) {
      let v: number = b2[i]!;
      const r = i * H;
      for (let j = 0; j < H; j++) v += w2[r + j]! * act[j]!;
      z3[heads[i]!] = v;
    }
    return cnt;
  }

  /**
   * Combined logits into z: per head, z12[k] plus language index li's share of this stage's logit of that head's best
   * window [start[k], end[k]) (each distinct window is evaluated once; heads this stage does not score keep z12).
   */
  apply(
    tH: Int32Array,
    flags: Int32Array,
    z12: Float64Array,
    start: Int32Array,
    end: Int32Array,
    li: number,
  ): void {
    const z = this.z;
    const mix = this.mixLang[li]!;
    z.set(z12);
    const heads = this.heads;
    let done = 0;
    for (let i = 0; i < heads.length; i++) {
      const k = heads[i]!;
      const a = start[k]!;
      const b = end[k]!;
      let seen = false;
      for (let j = 0; j < done; j++) if (this.winA[j] === a && this.winB[j] === b) seen = true;
      if (seen) continue;
      this.winA[done] = a;
      this.winB[done++] = b;
      this.window(tH, flags, a, b, z12);
      for (let i2 = i; i2 < heads.length; i2++) {
        const k2 = heads[i2]!;
        if (start[k2] === a && end[k2] === b) z[k2] = z12[k2]! + mix[k2]! * this.z3[k2]!;
      }
    }
  }
}

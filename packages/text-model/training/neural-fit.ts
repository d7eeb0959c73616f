/**
 * The third stage's optimisation (training/neural-trainer.ts prepares its data): per example, mean-pooled embeddings
 * → hidden ReLU layer → one logit per head added to the fixed logits z12, BCE per head weighted by the example's
 * weight and the head's positive-class weight, AdaGrad on every parameter (embedding rows lazily: only the rows a text
 * uses), seeded shuffles and initialisation: the same data and configuration give the same weights.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mulberry32, shuffleInPlace } from '../src/hash.ts';
import type { NeuralWeights } from '../src/neural-stage.ts';

/** Flat training set of the third stage. */
export interface NeuralData {
  /** the heads the stage scores (TEXT_CATEGORIES indices); z12 and labels hold heads.length values per text */
  heads: number[];
  /** text i's features are feats[offsets[i], offsets[i + 1]) */
  offsets: Int32Array;
  feats: Int32Array;
  z12: Float64Array;
  /** 1, 0 or -1 (unknown) */
  labels: Int8Array;
  weights: Float32Array;
  /** per text, its index in `keys` ("source\tgroup"): lets training/neural-dev.ts re-weight sources */
  keyIdx?: Int32Array;
  keys?: string[];
}

export interface FitConfig {
  bits: number;
  dim: number;
  hidden: number;
  epochs: number;
  lr: number;
  l2: number;
  seed: number;
  /** features: token pairs too (NeuralHeader.pairs) */
  pairs: boolean;
  /** scale of the random initial embeddings (uniform ±initScale) */
  initScale: number;
  /** share of a text's features left out at random each time it is seen (0: none) */
  dropout?: number;
  /** the hidden layer also reads sigmoid(z12) of every head (the first two stages' verdicts) */
  logitInputs?: boolean;
}

/** Largest per-head positive-class weight (sqrt of the class ratio, as the other stages). */
const MAX_POS_WEIGHT = 4;

export function fitNeural(data: NeuralData, cfg: FitConfig, log: (s: string) => void): NeuralWeights {
  const D = cfg.dim;
  const H = cfg.hidden;
  const nh = data.heads.length;
  const nb = 1 << cfg.bits;
  const m = data.weights.length;
  const rnd = mulberry32(cfg.seed);
  const uniform = (a: number) => (2 * rnd() - 1) * a;
  const emb = new Float32Array(nb * D).map(() => uniform(cfg.initScale));
  const w1 = new Float32Array(H * D).map(() => uniform(Math.sqrt(6 / (D + H))));
  const b1 = new Float32Array(H).fill(0.05);
  const w2 = new Float32Array(nh * H).map(() => uniform(0.01));
  const b2 = new Float32Array(nh);
  const nz = cfg.logitInputs ? nh : 0;
  const wz = new Float32Array(H * nz).map(() => uniform(Math.sqrt(6 / (nz + H))));
  const gWz = new Float64Array(H * nz);
  const zin = new Float64Array(nh);
  const gEmb = new Float32Array(nb * D);
  const gW1 = new Float64Array(H * D);
  const gB1 = new Float64Array(H);
  const gW2 = new Float64Array(nh * H);
  const gB2 = new Float64Array(nh);
  const pos = new Float64Array(nh);
  const neg = new Float64Array(nh);
  for (let i = 0; i < m; i++)
    for (let k = 0; k < nh; k++) {
      const y = data.labels[i * nh + k]!;
      if (y === 1) pos[k]!++;
      else if (y === 0) neg[k]!++;
    }
  const posW = Float64Array.from(pos, (p, k) =>
    Math.min(MAX_POS_WEIGHT, Math.max(1, Math.sqrt(neg[k]! / Math.max(1, p)))),
  );
  const e = new Float64Array(D);
  const pre = new Float64Array(H);
  const h = new Float64Array(H);
  const g = new Float64Array(nh);
  const dh = new Float64Array(H);
  const de = new Float64Array(D);
  const order = Int32Array.from({ length: m }, (_, i) => i);
  let longest = 0;
  for (let i = 0; i < m; i++) longest = Math.max(longest, data.offsets[i + 1]! - data.offsets[i]!);
  const kept = new Int32Array(longest);
  const drop = cfg.dropout ?? 0;
  const eps = 1e-8;
  const lr = cfg.lr;
  const t0 = performance.now();
  for (let ep = 0; ep < cfg.epochs; ep++) {
    shuffleInPlace(order, rnd);
    let loss = 0;
    let wsum = 0;
    for (let r = 0; r < m; r++) {
      const i = order[r]!;
      // the features seen this time: all, or those kept by the dropout draw (all when it keeps none)
      let cnt = 0;
      for (let f = data.offsets[i]!; f < data.offsets[i + 1]!; f++)
        if (drop === 0 || rnd() >= drop) kept[cnt++] = data.feats[f]!;
      if (cnt === 0)
        for (let f = data.offsets[i]!; f < data.offsets[i + 1]!; f++) kept[cnt++] = data.feats[f]!;
      const inv = cnt > 0 ? 1 / cnt : 0;
      e.fill(0);
      for (let f = 0; f < cnt; f++) {
        const row = kept[f]! * D;
        for (let d = 0; d < D; d++) e[d]! += emb[row + d]!;
      }
      for (let d = 0; d < D; d++) e[d]! *= inv;
      for (let k = 0; k < nz; k++) zin[k] = 1 / (1 + Math.exp(-data.z12[i * nh + k]!));
      for (let j = 0; j < H; j++) {
        let v: number = b1[j]!;
        for (let d = 0; d < D; d++) v += w1[j * D + d]! * e[d]!;
        for (let k = 0; k < nz; k++) v += wz[j * nz + k]! * zin[k]!;
        pre[j] = v;
        h[j] = v > 0 ? v : 0;
      }
      const sw = data.weights[i]!;
      let any = false;
      for (let k = 0; k < nh; k++) {
        const y = data.labels[i * nh + k]!;
        if (y < 0) {
          g[k] = 0;
          continue;
        }
        let v = data.z12[i * nh + k]! + b2[k]!;
        for (let j = 0; j < H; j++) v += w2[k * H + j]! * h[j]!;
        const p = 1 / (1 + Math.exp(-v));
        const wgt = sw * (y === 1 ? posW[k]! : 1);
        loss -= wgt * (y === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
        wsum += wgt;
        g[k] = wgt * (p - y);
        any = true;
      }
      if (!any) continue;
      // backward: hidden gradient from the old output weights, then the updates
      dh.fill(0);
      for (let k = 0; k < nh; k++) {
        const gk = g[k]!;
        if (gk === 0) continue;
        for (let j = 0; j < H; j++) {
          const q = k * H + j;
          dh[j]! += gk * w2[q]!;
          const gq = gk * h[j]!;
          gW2[q]! += gq * gq;
          w2[q]! -= (lr * gq) / Math.sqrt(gW2[q]! + eps);
        }
        gB2[k]! += gk * gk;
        b2[k]! -= (lr * gk) / Math.sqrt(gB2[k]! + eps);
      }
      de.fill(0);
      for (let j = 0; j < H; j++) {
        const dj = pre[j]! > 0 ? dh[j]! : 0;
        if (dj === 0) continue;
        for (let d = 0; d < D; d++) {
          const q = j * D + d;
          de[d]! += dj * w1[q]!;
          const gq = dj * e[d]! + cfg.l2 * w1[q]!;
          gW1[q]! += gq * gq;
          w1[q]! -= (lr * gq) / Math.sqrt(gW1[q]! + eps);
        }
        for (let k = 0; k < nz; k++) {
          const q = j * nz + k;
          const gq = dj * zin[k]!;
          gWz[q]! += gq * gq;
          wz[q]! -= (lr * gq) / Math.sqrt(gWz[q]! + eps);
        }
        gB1[j]! += dj * dj;
        b1[j]! -= (lr * dj) / Math.sqrt(gB1[j]! + eps);
      }
      for (let f = 0; f < cnt; f++) {
        const row = kept[f]! * D;
        for (let d = 0; d < D; d++) {
          const q = row + d;
          const gq = de[d]! * inv + cfg.l2 * emb[q]!;
          gEmb[q]! += gq * gq;
          emb[q]! -= (lr * gq) / Math.sqrt(gEmb[q]! + eps);
        }
      }
    }
    log(
      `neural epoch ${ep + 1}: weighted log-loss ${(loss / Math.max(1, wsum)).toFixed(4)} ` +
        `(${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  return {
    header: {
      format: 1,
      bits: cfg.bits,
      pairs: cfg.pairs,
      dim: D,
      hidden: H,
      heads: data.heads,
      logitInputs: nz > 0,
      platt: [],
      training: { config: cfg },
    },
    emb,
    w1,
    b1,
    w2,
    b2,
    wz,
  };
}

/** Writes the prepared data (VERDICT_NN_DATA_OUT) so training/neural-dev.ts can refit the stage without retraining. */
export function saveNeuralData(path: string, d: NeuralData): void {
  const arrays = [d.offsets, d.feats, d.z12, d.labels, d.weights, d.keyIdx ?? new Int32Array(0)];
  const head = Buffer.from(
    JSON.stringify({ heads: d.heads, keys: d.keys ?? [], lengths: arrays.map((a) => a.length) }),
  );
  const parts = [
    Buffer.alloc(4),
    head,
    ...arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)),
  ];
  parts[0]!.writeUInt32LE(head.length);
  writeFileSync(path, Buffer.concat(parts));
}

export function loadNeuralData(path: string): NeuralData {
  const b = readFileSync(path);
  const n = b.readUInt32LE(0);
  const { heads, keys, lengths } = JSON.parse(b.subarray(4, 4 + n).toString()) as {
    heads: number[];
    keys: string[];
    lengths: number[];
  };
  let o = 4 + n;
  const take = <T>(C: { new (buf: ArrayBuffer): T; BYTES_PER_ELEMENT: number }, len: number): T => {
    const bytes = b.subarray(o, o + len * C.BYTES_PER_ELEMENT);
    o += bytes.length;
    return new C(Uint8Array.from(bytes).buffer);
  };
  return {
    heads,
    offsets: take(Int32Array, lengths[0]!),
    feats: take(Int32Array, lengths[1]!),
    z12: take(Float64Array, lengths[2]!),
    labels: take(Int8Array, lengths[3]!),
    weights: take(Float32Array, lengths[4]!),
    keyIdx: take(Int32Array, lengths[5] ?? 0),
    keys,
  };
}

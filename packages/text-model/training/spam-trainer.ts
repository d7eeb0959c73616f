/**
 * Trains the spam head's dedicated model (src/spam-features.ts): logistic regression over its own hashed buckets
 * plus the text-level spam cues, AdaGrad, on spam-annotated training data only (SMS, SpamAssassin, generated
 * comment spam and hard negatives). Its logit is added to the shared spam head's logit before calibration.
 */
import { N_SPAM_CUES, spamCues } from '../src/features.ts';
import { mulberry32, shuffleInPlace } from '../src/hash.ts';
import { SpamFeatureExtractor } from '../src/spam-features.ts';
import type { Example } from './data.ts';

export interface SpamModelConfig {
  bits: number;
  /** char n-gram lengths (bits 1 << n) */
  charGrams: number;
  epochs: number;
  lr: number;
  l2: number;
  seed: number;
  /** per-source sample weights (default 1) */
  sourceWeight: Record<string, number>;
}

export interface SpamModelParams {
  hashed: Float32Array;
  bias: number;
  cues: Float64Array;
}

const SP = 7;

/** Sources whose spam labels are annotations (the others carry spam = 0 only by assumption). */
export function spamAnnotatedSource(source: string): boolean {
  return source === 'sms_spam' || source === 'spamassassin' || source.startsWith('generated');
}

export function trainSpamModel(
  examples: Example[],
  cfg: SpamModelConfig,
  log: (s: string) => void,
): SpamModelParams {
  const rows = examples.filter((e) => e.labels[SP]! >= 0 && spamAnnotatedSource(e.source));
  const n = rows.length;
  const fx = new SpamFeatureExtractor(cfg.bits, cfg.charGrams);
  const off = new Int32Array(n + 1);
  let idx = new Int32Array(1 << 22);
  let val = new Float32Array(1 << 22);
  let used = 0;
  const cues = new Float32Array(n * N_SPAM_CUES);
  const ct = new Float64Array(N_SPAM_CUES);
  for (let i = 0; i < n; i++) {
    const e = rows[i]!;
    const m = fx.run(e.text);
    if (used + m > idx.length) {
      const cap = Math.max(idx.length * 2, used + m);
      const a = new Int32Array(cap);
      a.set(idx.subarray(0, used));
      idx = a;
      const b = new Float32Array(cap);
      b.set(val.subarray(0, used));
      val = b;
    }
    idx.set(fx.idx.subarray(0, m), used);
    val.set(fx.val.subarray(0, m), used);
    used += m;
    off[i + 1] = used;
    spamCues(e.text, ct);
    for (let d = 0; d < N_SPAM_CUES; d++) cues[i * N_SPAM_CUES + d] = ct[d]!;
  }
  log(`spam model: ${n} examples, ${used} features, 2^${cfg.bits} buckets`);
  const nb = 1 << cfg.bits;
  const W = new Float64Array(nb);
  const G = new Float64Array(nb);
  const C = new Float64Array(N_SPAM_CUES);
  const Gc = new Float64Array(N_SPAM_CUES);
  let bias = 0;
  let Gb = 0;
  const eps = 1e-8;
  const { lr, l2 } = cfg;
  const rnd = mulberry32(cfg.seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const sw = new Float64Array(n);
  for (let i = 0; i < n; i++) sw[i] = cfg.sourceWeight[rows[i]!.source] ?? 1;
  for (let ep = 0; ep < cfg.epochs; ep++) {
    shuffleInPlace(order, rnd);
    let loss = 0;
    let cnt = 0;
    for (let oi = 0; oi < n; oi++) {
      const ex = order[oi]!;
      const y = rows[ex]!.labels[SP]!;
      const s = off[ex]!;
      const e = off[ex + 1]!;
      let v = bias;
      for (let j = s; j < e; j++) v += W[idx[j]!]! * val[j]!;
      for (let d = 0; d < N_SPAM_CUES; d++) v += C[d]! * cues[ex * N_SPAM_CUES + d]!;
      const p = 1 / (1 + Math.exp(-v));
      const w = sw[ex]!;
      const g = (p - y) * w;
      loss += -w * Math.log(y === 1 ? Math.max(p, 1e-12) : Math.max(1 - p, 1e-12));
      cnt += w;
      Gb += g * g;
      bias -= (lr * g) / Math.sqrt(Gb + eps);
      for (let j = s; j < e; j++) {
        const k = idx[j]!;
        const gr = g * val[j]! + l2 * W[k]!;
        G[k]! += gr * gr;
        W[k]! -= (lr * gr) / Math.sqrt(G[k]! + eps);
      }
      for (let d = 0; d < N_SPAM_CUES; d++) {
        const x = cues[ex * N_SPAM_CUES + d]!;
        if (x === 0) continue;
        const gr = g * x + l2 * C[d]!;
        Gc[d]! += gr * gr;
        C[d]! -= (lr * gr) / Math.sqrt(Gc[d]! + eps);
      }
    }
    log(`spam model epoch ${ep + 1}: weighted log-loss ${(loss / cnt).toFixed(4)}`);
  }
  return { hashed: Float32Array.from(W), bias, cues: C };
}

/** Multi-head logistic regression over hashed + dense features, trained with AdaGrad (deterministic). */
import { langBit, N_DENSE, N_HEADS, SUPPORTED_LANGUAGES, TEXT_CATEGORIES } from '../src/constants.ts';
import { denseCounts, FeatureExtractor, MIN_NORM_FEATURES, N_SPAM_CUES, spamCues } from '../src/features.ts';
import { mulberry32, shuffleInPlace } from '../src/hash.ts';
import type { Lexicon } from '../src/lexicon.ts';
import { Tokenizer } from '../src/tokenize.ts';
import type { Example } from './data.ts';

export interface TrainConfig {
  bits: number;
  window: number;
  epochs: number;
  lr: number;
  l2: number;
  seed: number;
  /** more seeds: trainAveraged() trains once per seed and averages the parameters (see there) */
  extraSeeds?: number[];
  /** per-source sample weights (default 1) */
  /** Weight per source, or per `source:group` (e.g. `authored:benign_everyday`), which takes precedence. */
  sourceWeight: Record<string, number>;
  maxPosWeight: number;
  /**
   * Learn a bias per (source dataset, head) during training only. Datasets disagree on base rates and on where
   * they draw the line (Davidson is 84 % "offensive", TweetEval 33 %); per-source offsets absorb that so the
   * shared weights model content. At inference there is no source (Platt scaling re-centres the logits).
   */
  sourceBias: boolean;
  /** heads trained on word-level features only (their char n-gram weights stay 0 except for collisions) */
  wordOnlyHeads: number[];
  /** learn weights for the text-level spam cues (SPAM_CUES), spam head only */
  spamCues: boolean;
  /** per-head overrides of the number of epochs and of the learning rate (heads are independent models) */
  epochsByHead?: Record<string, number>;
  lrByHead?: Record<string, number>;
}

const SPAM = TEXT_CATEGORIES.indexOf('spam');

const CHAR_BIT = 1 << 30;

export interface TrainedParams {
  hashed: Float32Array;
  bias: Float64Array;
  dense: Float64Array; // [d * N_HEADS + k]
  /** spam-cue weights (zeros when cfg.spamCues is off) */
  cues: Float64Array;
}

/** The element-wise mean of arrays of one length (the first one's type); the array itself when there is one. */
export function meanOf<T extends Float32Array | Float64Array>(arrays: T[]): T {
  if (arrays.length === 1) return arrays[0]!;
  const out = arrays[0]!.slice() as T;
  for (let r = 1; r < arrays.length; r++) {
    const a = arrays[r]!;
    for (let i = 0; i < out.length; i++) out[i]! += a[i]!;
  }
  for (let i = 0; i < out.length; i++) out[i]! /= arrays.length;
  return out;
}

/**
 * train() once per seed (cfg.seed, then cfg.extraSeeds) and the average of the parameters: the model is linear in
 * them, so this is the average of the runs' logits. A run's seed (its shuffle order) moves the yardsticks by more
 * than most changes do (training/experiments/README.md, "Seed noise"); averaged runs landed between the single
 * runs there, no better than the best of them, so the shipped configuration trains one.
 */
export function trainAveraged(
  examples: Example[],
  lex: Lexicon,
  cfg: TrainConfig,
  log: (s: string) => void,
): TrainedParams {
  const seeds = [cfg.seed, ...(cfg.extraSeeds ?? [])];
  const runs = seeds.map((seed) => train(examples, lex, { ...cfg, seed }, log));
  return {
    hashed: meanOf(runs.map((p) => p.hashed)),
    bias: meanOf(runs.map((p) => p.bias)),
    dense: meanOf(runs.map((p) => p.dense)),
    cues: meanOf(runs.map((p) => p.cues)),
  };
}

export function train(
  examples: Example[],
  lex: Lexicon,
  cfg: TrainConfig,
  log: (s: string) => void,
): TrainedParams {
  const fx = new FeatureExtractor(new Tokenizer(lex), lex, cfg.bits);
  const n = examples.length;
  // 1. Featurise the first window of every example into flat arrays.
  const offsets = new Int32Array(n + 1);
  let pool = new Int32Array(1 << 24);
  let used = 0;
  const dense = new Float32Array(n * N_DENSE);
  // Normalisers of the char n-gram and word-level groups (equal today: separate ones lost on validation).
  const norms = new Float32Array(n);
  const wnorms = new Float32Array(n);
  const dc = new Float64Array(N_DENSE);
  const cues = new Float32Array(cfg.spamCues ? n * N_SPAM_CUES : 0);
  const cueTmp = new Float64Array(N_SPAM_CUES);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const e = examples[i]!;
    const nTok = fx.run(e.text, e.lang, langBit(e.lang));
    const b = Math.min(nTok, cfg.window);
    const fs = fx.tokFeatStart[0] ?? 0;
    const fe = nTok > 0 ? fx.tokFeatStart[b]! : 0;
    const cnt = fe - fs;
    if (used + cnt > pool.length) {
      const np = new Int32Array(Math.max(pool.length * 2, used + cnt));
      np.set(pool.subarray(0, used));
      pool = np;
    }
    for (let t = 0; t < b; t++) {
      const cs = fx.tokCharStart[t]!;
      for (let j = fx.tokFeatStart[t]!; j < fx.tokFeatStart[t + 1]!; j++)
        pool[used++] = j >= cs ? fx.idx[j]! | CHAR_BIT : fx.idx[j]!;
    }
    offsets[i + 1] = used;
    norms[i] = 1 / Math.sqrt(Math.max(cnt, MIN_NORM_FEATURES));
    wnorms[i] = norms[i]!;
    denseCounts(fx.tokFlags, 0, b, fx.shout, dc);
    for (let d = 0; d < N_DENSE; d++) dense[i * N_DENSE + d] = dc[d]!;
    if (cfg.spamCues && e.labels[SPAM]! >= 0) {
      spamCues(e.text, cueTmp);
      for (let d = 0; d < N_SPAM_CUES; d++) cues[i * N_SPAM_CUES + d] = cueTmp[d]!;
    }
  }
  log(`featurised ${n} examples, ${used} features in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // 2. Sample weights: source weight × per-head class balance.
  const pos = new Float64Array(N_HEADS);
  const neg = new Float64Array(N_HEADS);
  for (const e of examples)
    for (let k = 0; k < N_HEADS; k++) {
      if (e.labels[k] === 1) pos[k]!++;
      else if (e.labels[k] === 0) neg[k]!++;
    }
  const posW = new Float64Array(N_HEADS);
  for (let k = 0; k < N_HEADS; k++) {
    posW[k] = Math.min(cfg.maxPosWeight, Math.max(1, Math.sqrt(neg[k]! / Math.max(1, pos[k]!))));
    log(`  ${TEXT_CATEGORIES[k]}: ${pos[k]} pos / ${neg[k]} neg, pos weight ${posW[k]!.toFixed(2)}`);
  }
  const srcW = new Float32Array(n);
  for (let i = 0; i < n; i++) srcW[i] = exampleWeight(cfg.sourceWeight, examples[i]!);
  const sourceIds = new Map<string, number>();
  const srcId = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = examples[i]!.source;
    let id = sourceIds.get(s);
    if (id === undefined) {
      id = sourceIds.size;
      sourceIds.set(s, id);
    }
    srcId[i] = id;
  }
  const SB = new Float64Array(sourceIds.size * N_HEADS);
  const GSB = new Float64Array(sourceIds.size * N_HEADS);

  // 3. AdaGrad.
  const nb = 1 << cfg.bits;
  const W = new Float32Array(nb * N_HEADS);
  const G = new Float32Array(nb * N_HEADS);
  const bias = new Float64Array(N_HEADS);
  const Gb = new Float64Array(N_HEADS);
  const V = new Float64Array(N_DENSE * N_HEADS);
  const Gv = new Float64Array(N_DENSE * N_HEADS);
  const C = new Float64Array(N_SPAM_CUES);
  const Gc = new Float64Array(N_SPAM_CUES);
  const rnd = mulberry32(cfg.seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const z = new Float64Array(N_HEADS);
  const zw = new Float64Array(N_HEADS);
  const g = new Float64Array(N_HEADS);
  const wordOnlyMask = new Uint8Array(N_HEADS);
  for (const k of cfg.wordOnlyHeads) wordOnlyMask[k] = 1;
  const l2 = cfg.l2;
  const eps = 1e-8;
  const headEpochs = TEXT_CATEGORIES.map((c) => cfg.epochsByHead?.[c] ?? cfg.epochs);
  const headLr = TEXT_CATEGORIES.map((c) => cfg.lrByHead?.[c] ?? cfg.lr);
  const maxEpochs = Math.max(...headEpochs);
  // A head whose epochs are done is skipped; the shuffle sequence is the same as with one global epoch count.
  const active = new Uint8Array(N_HEADS);
  for (let ep = 0; ep < maxEpochs; ep++) {
    for (let k = 0; k < N_HEADS; k++) active[k] = ep < headEpochs[k]! ? 1 : 0;
    shuffleInPlace(order, rnd);
    let loss = 0;
    let cnt = 0;
    const t1 = performance.now();
    for (let oi = 0; oi < n; oi++) {
      const ex = order[oi]!;
      const labels = examples[ex]!.labels;
      const s = offsets[ex]!;
      const e = offsets[ex + 1]!;
      const norm = norms[ex]!;
      const wnorm = wnorms[ex]!;
      for (let k = 0; k < N_HEADS; k++) {
        z[k] = 0;
        zw[k] = 0;
      }
      for (let i = s; i < e; i++) {
        const f = pool[i]!;
        const b = (f & ~CHAR_BIT) << 3;
        if ((f & CHAR_BIT) !== 0) for (let k = 0; k < N_HEADS; k++) z[k]! += W[b + k]!;
        else for (let k = 0; k < N_HEADS; k++) zw[k]! += W[b + k]!;
      }
      let any = false;
      for (let k = 0; k < N_HEADS; k++) {
        const y = labels[k]!;
        if (y < 0 || active[k] === 0) {
          g[k] = 0;
          continue;
        }
        let v = bias[k]! + z[k]! * norm + zw[k]! * wnorm;
        if (cfg.sourceBias) v += SB[srcId[ex]! * N_HEADS + k]!;
        for (let d = 0; d < N_DENSE; d++) {
          const x = dense[ex * N_DENSE + d]!;
          if (x !== 0) v += x * V[d * N_HEADS + k]!;
        }
        if (k === SPAM && cfg.spamCues)
          for (let d = 0; d < N_SPAM_CUES; d++) v += cues[ex * N_SPAM_CUES + d]! * C[d]!;
        const p = 1 / (1 + Math.exp(-v));
        const w = srcW[ex]! * (y === 1 ? posW[k]! : 1);
        g[k] = (p - y) * w;
        loss += -w * Math.log(y === 1 ? Math.max(p, 1e-12) : Math.max(1 - p, 1e-12));
        cnt += w;
        any = true;
      }
      if (!any) continue;
      for (let k = 0; k < N_HEADS; k++) {
        const gk = g[k]!;
        if (gk === 0) continue;
        const lr = headLr[k]!;
        Gb[k]! += gk * gk;
        bias[k]! -= (lr * gk) / Math.sqrt(Gb[k]! + eps);
        if (cfg.sourceBias) {
          const j = srcId[ex]! * N_HEADS + k;
          GSB[j]! += gk * gk;
          SB[j]! -= (lr * gk) / Math.sqrt(GSB[j]! + eps);
        }
        for (let d = 0; d < N_DENSE; d++) {
          const x = dense[ex * N_DENSE + d]!;
          if (x === 0) continue;
          const j = d * N_HEADS + k;
          const gr = gk * x + l2 * V[j]!;
          Gv[j]! += gr * gr;
          V[j]! -= (lr * gr) / Math.sqrt(Gv[j]! + eps);
        }
        if (k === SPAM && cfg.spamCues) {
          for (let d = 0; d < N_SPAM_CUES; d++) {
            const x = cues[ex * N_SPAM_CUES + d]!;
            if (x === 0) continue;
            const gr = gk * x + l2 * C[d]!;
            Gc[d]! += gr * gr;
            C[d]! -= (lr * gr) / Math.sqrt(Gc[d]! + eps);
          }
        }
        const gn = gk * norm;
        const gw = gk * wnorm;
        const wordOnly = wordOnlyMask[k] === 1;
        for (let i = s; i < e; i++) {
          const f = pool[i]!;
          const isChar = (f & CHAR_BIT) !== 0;
          if (wordOnly && isChar) continue;
          const j = ((f & ~CHAR_BIT) << 3) + k;
          const gr = (isChar ? gn : gw) + l2 * W[j]!;
          const acc = G[j]! + gr * gr;
          G[j] = acc;
          W[j]! -= (lr * gr) / Math.sqrt(acc + eps);
        }
      }
    }
    log(
      `epoch ${ep + 1}: weighted log-loss ${(loss / cnt).toFixed(4)} (${((performance.now() - t1) / 1000).toFixed(1)} s)`,
    );
  }
  return { hashed: W, bias, dense: V, cues: C };
}

/** Fits Platt scaling p = sigmoid(a z + b) by Newton's method on (logit, label) pairs. */
export function fitPlatt(zs: number[], ys: number[]): [number, number] {
  const n1 = ys.filter((y) => y === 1).length;
  const n0 = ys.length - n1;
  if (n1 === 0 || n0 === 0) return [1, 0];
  // Platt's smoothed targets avoid overconfidence on separable data.
  const t1 = (n1 + 1) / (n1 + 2);
  const t0 = 1 / (n0 + 2);
  const loss = (a: number, b: number): number => {
    let l = 0;
    for (let i = 0; i < zs.length; i++) {
      const t = ys[i] === 1 ? t1 : t0;
      const v = a * zs[i]! + b;
      // log(1 + e^v) - t v, computed stably
      l += (v > 0 ? v + Math.log1p(Math.exp(-v)) : Math.log1p(Math.exp(v))) - t * v;
    }
    return l;
  };
  let a = 1;
  let b = 0;
  let cur = loss(a, b);
  for (let it = 0; it < 100; it++) {
    let ga = 0;
    let gb = 0;
    let haa = 1e-9;
    let hab = 0;
    let hbb = 1e-9;
    for (let i = 0; i < zs.length; i++) {
      const z = zs[i]!;
      const t = ys[i] === 1 ? t1 : t0;
      const p = 1 / (1 + Math.exp(-(a * z + b)));
      const d = p - t;
      const w = p * (1 - p);
      ga += d * z;
      gb += d;
      haa += w * z * z;
      hab += w * z;
      hbb += w;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    // backtracking line search keeps Newton stable on nearly separable heads
    let step = 1;
    let next = loss(a - da, b - db);
    while (next > cur && step > 1e-6) {
      step /= 2;
      next = loss(a - step * da, b - step * db);
    }
    if (next > cur) break;
    a -= step * da;
    b -= step * db;
    const improved = cur - next;
    cur = next;
    if (improved < 1e-10) break;
  }
  return [a, b];
}

export const LANGS = SUPPORTED_LANGUAGES;

/** An example's training weight: its `source:group` entry, else its source's, else 1. */
export function exampleWeight(
  weights: Record<string, number>,
  e: { source: string; group?: string },
): number {
  return (e.group !== undefined ? weights[`${e.source}:${e.group}`] : undefined) ?? weights[e.source] ?? 1;
}

/**
 * Trains the third stage (src/neural-stage.ts) on top of the first two: the gated training texts' fixed logits
 * z12 = z1 + mix * z2 (first stage out of fold; second stage out of fold too when cfg.contextFolds > 1), then an
 * embedding bag + hidden layer whose logit z3 is added to them (boosting: BCE per head on z12 + z3, the second
 * stage's example weights), AdaGrad per example, seeded; then a Platt fit per head, pooled and per language, on the
 * gated calibration texts, as the second stage does.
 */
import { SUPPORTED_LANGUAGES, TEXT_CATEGORIES } from '../src/constants.ts';
import { ContextModel } from '../src/context-model.ts';
import { hashString } from '../src/hash.ts';
import type { Scorer } from '../src/model.ts';
import {
  decodeNeuralWeights,
  encodeNeuralWeights,
  MAX_NEURAL_FEATURES,
  NeuralStage,
  type NeuralWeights,
  neuralFeatures,
  reachesGate,
} from '../src/neural-stage.ts';
import { CalibrationSet, calibratesHead } from './calibration.ts';
import {
  benignWords,
  type ContextConfig,
  firstWindow,
  gated,
  HEADS,
  isEnglishView,
  judged,
  mixShares,
  trainContext,
  withEnglishViews,
} from './context-trainer.ts';
import type { Example } from './data.ts';
import { type FitConfig, fitNeural, type NeuralData, saveNeuralData } from './neural-fit.ts';
import { exampleWeight } from './trainer.ts';

/** What the third stage is trained from: the first two stages as shipped, the texts and the settings. */
export interface NeuralInputs {
  scorer: Scorer;
  /** the second stage as shipped, and the first stage's calibration (flat [a, b] per head) */
  ctx: ContextModel;
  platt: Float64Array;
  train: Example[];
  calib: Example[];
  ctxCfg: ContextConfig;
  cfg: NeuralConfig;
  log: (s: string) => void;
  /** a training text's out-of-fold first-stage logits (undefined: scored in sample) */
  z1Of: (e: Example) => Float64Array | undefined;
}

export interface NeuralConfig extends FitConfig {
  /** languages and heads whose share of z3 the real calibration texts decide (default: the second stage's) */
  mixLangs?: string[];
  mixHeads?: string[];
  /** the third stage's own gate (NeuralHeader.gateP) */
  gateP: number;
  /** folds of out-of-fold second stages for the training texts' z2 (≤ 1: the shipped second stage, in sample) */
  contextFolds: number;
}

const SPAM = TEXT_CATEGORIES.indexOf('spam');

/** Fold of a training text for the out-of-fold second stages: by template, so one template's expansions share one. */
function fold(e: Example, folds: number): number {
  return (hashString(`nnoof:${e.source}:${e.template ?? e.text}`) >>> 0) % folds;
}

/**
 * The gated, judged training texts (and the second stage's one-word benign texts) of weight > 0: their first-window
 * features, fixed logits z12, labels and weights.
 */
export function prepareNeural({
  scorer,
  ctx,
  platt,
  train,
  ctxCfg,
  cfg,
  log,
  z1Of,
}: NeuralInputs): NeuralData {
  const t0 = performance.now();
  const weight = (e: Example) => exampleWeight(ctxCfg.sourceWeight, e);
  const folds: ContextModel[] = [];
  for (let f = 0; f < cfg.contextFolds && cfg.contextFolds > 1; f++) {
    const w = trainContext(
      scorer,
      platt,
      train.filter((e) => fold(e, cfg.contextFolds) !== f),
      [],
      ctxCfg,
      () => {},
      z1Of,
    );
    folds.push(new ContextModel(w));
  }
  if (folds.length > 0)
    log(
      `neural: ${folds.length} out-of-fold second stages, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
  const words = benignWords(ctx, scorer, train, ctxCfg);
  const set = [...train, ...words];
  const inTrain = new Set(train);
  const shift = 32 - cfg.bits;
  const offsets: number[] = [0];
  const feats: number[] = [];
  const z12: number[] = [];
  const labels: number[] = [];
  const weights: number[] = [];
  const keyIdx: number[] = [];
  const keys = new Map<string, number>();
  const buf = new Int32Array(MAX_NEURAL_FEATURES);
  for (const e of set) {
    if (!judged(e) || weight(e) === 0) continue;
    const n = scorer.score(e.text, e.lang);
    const tH = scorer.fx.tok.tH;
    const flags = scorer.fx.tokFlags;
    if (!gated(ctx, scorer, platt, n, tH, flags)) continue;
    const li = SUPPORTED_LANGUAGES.indexOf(e.lang);
    if (cfg.gateP > 0) {
      // the runtime's test, on the shipped second stage (its logits of the training text are in sample)
      ctx.apply(scorer, tH, flags, n, SPAM, li);
      if (!reachesGate(ctx.z, ctx.plattLang[li]!, HEADS, cfg.gateP)) continue;
    }
    const z1 = Float64Array.from(z1Of(e) ?? firstWindow(scorer, n));
    const b = Math.min(n, scorer.window);
    const model = folds.length > 0 && inTrain.has(e) ? folds[fold(e, folds.length)]! : ctx;
    model.prepare(tH, flags, n);
    model.windowZ2(0, b, SPAM);
    const mix = ctx.mixLang[li]!;
    for (const k of HEADS) {
      z12.push(z1[k]! + mix[k]! * model.z2[k]!);
      labels.push(e.labels[k]!);
    }
    for (let t = 0; t < b; t++) {
      const m = neuralFeatures(tH, flags, b, t, shift, buf, 0, cfg.pairs);
      for (let j = 0; j < m; j++) feats.push(buf[j]!);
    }
    offsets.push(feats.length);
    weights.push(weight(e));
    const key = `${e.source}\t${e.group ?? ''}`;
    if (!keys.has(key)) keys.set(key, keys.size);
    keyIdx.push(keys.get(key)!);
  }
  const m = weights.length;
  log(
    `neural: ${m} of ${set.length} training texts gated, ${feats.length} features, ` +
      `${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return {
    heads: HEADS,
    offsets: Int32Array.from(offsets),
    feats: Int32Array.from(feats),
    z12: Float64Array.from(z12),
    labels: Int8Array.from(labels),
    weights: Float32Array.from(weights),
    keyIdx: Int32Array.from(keyIdx),
    keys: [...keys.keys()],
  };
}

/**
 * Mixing shares (per language and head, on the real calibration texts of ctxCfg.mixFromRealData, as the second stage's)
 * and Platt rows (pooled and per language) of the gated calibration texts scored by the three stages as shipped
 * (float16), into w.header.
 */
export function calibrateNeural(
  w: NeuralWeights,
  scorer: Scorer,
  ctx: ContextModel,
  platt: Float64Array,
  calib: Example[],
  ctxCfg: ContextConfig,
  cfg: Pick<NeuralConfig, 'mixLangs' | 'mixHeads' | 'gateP'>,
  log: (s: string) => void,
): void {
  w.header.gateP = cfg.gateP;
  // first pass: each gated view's z12 and z3 per head (this stage's full logit), for the mixing shares
  const full = new NeuralStage(w);
  const views = withEnglishViews(calib).filter(
    (e) => judged(e) && exampleWeight(ctxCfg.sourceWeight, e) !== 0,
  );
  const z12s = new Map<Example, Float64Array>();
  const z3s = new Map<Example, Float64Array>();
  for (const e of views) {
    const n = scorer.score(e.text, e.lang);
    const tH = scorer.fx.tok.tH;
    const flags = scorer.fx.tokFlags;
    if (!gated(ctx, scorer, platt, n, tH, flags)) continue;
    const li = SUPPORTED_LANGUAGES.indexOf(e.lang);
    ctx.apply(scorer, tH, flags, n, SPAM, li);
    if (!reachesGate(ctx.z, ctx.plattLang[li]!, HEADS, w.header.gateP ?? 0)) continue;
    full.apply(tH, flags, ctx.z, ctx.bestStart, ctx.bestEnd, li);
    z12s.set(e, Float64Array.from(ctx.z));
    z3s.set(
      e,
      Float64Array.from(full.z, (v, k) => v - ctx.z[k]!),
    );
  }
  w.header.mixByLang = mixShares(
    [...z12s.keys()].filter(
      (e) =>
        !isEnglishView(e) &&
        e.source !== 'authored' &&
        (cfg.mixLangs ?? ctxCfg.mixFromRealData).includes(e.lang),
    ),
    z12s,
    z3s,
    (s) => log(s.replace('context mix', 'neural mix')),
    cfg.mixHeads,
  );
  const nn = new NeuralStage(w);
  const cal = new CalibrationSet();
  for (const e of z12s.keys()) {
    const mix = nn.mixLang[SUPPORTED_LANGUAGES.indexOf(e.lang)]!;
    const z12 = z12s.get(e)!;
    const z3 = z3s.get(e)!;
    for (const k of HEADS) {
      if (e.labels[k]! < 0 || !calibratesHead(k, e.source, e.text)) continue;
      cal.add(k, z12[k]! + mix[k]! * z3[k]!, e.labels[k]!, isEnglishView(e) ? null : e.lang);
    }
  }
  w.header.platt = TEXT_CATEGORIES.map((c, k) => {
    if (k === SPAM) return [1, 0] as [number, number];
    const [a, b] = cal.pooledFit(k);
    log(`neural platt ${c}: a=${a.toFixed(3)} b=${b.toFixed(3)} (n=${cal.size(k)})`);
    return [a, b] as [number, number];
  });
  w.header.plattByLang = cal.byLanguage(w.header.platt, [SPAM]);
  log(`neural: ${z12s.size} of ${views.length} calibration views gated`);
}

/** The third stage, trained and calibrated (float16 round trip before calibrating, as shipped). */
export function trainNeural(inputs: NeuralInputs): NeuralWeights {
  const { scorer, ctx, platt, calib, ctxCfg, cfg, log } = inputs;
  const t0 = performance.now();
  const data = prepareNeural(inputs);
  if (process.env.VERDICT_NN_DATA_OUT) saveNeuralData(process.env.VERDICT_NN_DATA_OUT, data);
  const w = decodeNeuralWeights(encodeNeuralWeights(fitNeural(data, cfg, log)));
  calibrateNeural(w, scorer, ctx, platt, calib, ctxCfg, cfg, log);
  log(`neural stage: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return w;
}

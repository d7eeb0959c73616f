/**
 * Trains the second stage (src/context-model.ts) on top of a trained first stage: trigger terms and stopwords from
 * the training split, then a logistic model per head on the gated training texts whose logit is added to the first
 * stage's (boosting: the first stage is fixed), then a Platt fit per head on the gated calibration texts.
 */
import { N_HEADS, SUPPORTED_LANGUAGES, type SupportedLanguage, TEXT_CATEGORIES } from '../src/constants.ts';
import {
  CLASS_MASK,
  type ContextHeader,
  ContextModel,
  type ContextWeights,
  contextFeatures,
  MAX_CONTEXT_FEATURES,
  MIN_NORM,
} from '../src/context-model.ts';
import { mulberry32, shuffleInPlace } from '../src/hash.ts';
import type { Scorer } from '../src/model.ts';
import { fromHalf, toHalf } from '../src/weights.ts';
import { CalibrationSet, calibratesHead } from './calibration.ts';
import { commonBenignWords, oneWordBenign } from './common-words.ts';
import type { Example } from './data.ts';
import { exampleWeight, fitPlatt, meanOf } from './trainer.ts';

export interface ContextConfig {
  bits: number;
  epochs: number;
  lr: number;
  l2: number;
  seed: number;
  /**
   * More seeds: the SGD passes run once per seed (shuffle order) on the same features and their weights are averaged
   * (a linear model: the average of their logits). One run's seed moves the yardsticks by more than most changes.
   */
  extraSeeds?: number[];
  gateP: number;
  /** a token is a trigger when at least this many harmful training texts contain it … */
  triggerMinDocs: number;
  /** … and its share of harmful texts exceeds its language's base rate by this much */
  triggerLift: number;
  stopwordsPerLanguage: number;
  /** one-word benign texts generated per language for this stage (benignWords) */
  benignWordsPerLanguage: number;
  /**
   * Which words become one-word benign texts: 'trigger' (v2: the most frequent words of benign texts, 3+ letters, that
   * are not trigger terms) or 'ratio' (training/common-words.ts: 2+ letters, at least 4 times as frequent in benign
   * as in harmful texts, trigger terms included: "nice" and "hi" are trigger terms of sexual harassment templates).
   */
  benignWordsRule?: 'trigger' | 'ratio';
  /** 'ratio' rule: how many times as frequent in benign as in harmful texts a word must be. */
  benignWordsMinRatio?: number;
  /**
   * Languages whose labelled datasets decide how much of the second stage their texts get (mixShares). English is
   * not one: its datasets are 2017-2019 tweets whose labels conflict with the categories' definitions (Davidson
   * marks identity terms and African-American English as offensive), and it has the largest authored set.
   */
  mixFromRealData: string[];
  /** words per language that make a text "read as" that language (LocalTextModel: detection otherwise) */
  commonWordsPerLanguage: number;
  sourceWeight: Record<string, number>;
  maxPosWeight: number;
}

const SPAM = TEXT_CATEGORIES.indexOf('spam');
/** heads the second stage learns (every head but spam) */
export const HEADS = TEXT_CATEGORIES.map((_, k) => k).filter((k) => k !== SPAM);

function harmful(e: Example): boolean {
  for (const k of HEADS) if (e.labels[k] === 1) return true;
  return false;
}

export function judged(e: Example): boolean {
  for (const k of HEADS) if (e.labels[k]! >= 0) return true;
  return false;
}

/** First-window token hashes and lexicon flags of a text, as the runtime sees them. */
function tokensOf(scorer: Scorer, e: Example): { n: number; tH: Int32Array; flags: Int32Array } {
  const n = scorer.score(e.text, e.lang);
  return { n, tH: scorer.fx.tok.tH, flags: scorer.fx.tokFlags };
}

/** Trigger terms and stopwords from the training split. */
export function vocabulary(
  scorer: Scorer,
  train: Example[],
  cfg: ContextConfig,
): { triggers: number[]; stopwords: number[]; commonWords: Record<string, number[]> } {
  const docs = new Map<number, { pos: number; neg: number; lang: string }>();
  const langPos = new Map<string, number>();
  const langAll = new Map<string, number>();
  const perLang = new Map<string, Map<number, number>>();
  const seen = new Set<number>();
  for (const e of train) {
    if (!judged(e)) continue;
    const { n, tH, flags } = tokensOf(scorer, e);
    const pos = harmful(e);
    langAll.set(e.lang, (langAll.get(e.lang) ?? 0) + 1);
    if (pos) langPos.set(e.lang, (langPos.get(e.lang) ?? 0) + 1);
    seen.clear();
    const freq = perLang.get(e.lang) ?? new Map<number, number>();
    perLang.set(e.lang, freq);
    for (let t = 0; t < Math.min(n, scorer.window); t++) {
      const h = tH[t]!;
      if (seen.has(h)) continue;
      seen.add(h);
      if ((flags[t]! & CLASS_MASK) === 0) freq.set(h, (freq.get(h) ?? 0) + 1);
      const d = docs.get(h) ?? { pos: 0, neg: 0, lang: e.lang };
      if (pos) d.pos++;
      else d.neg++;
      docs.set(h, d);
    }
  }
  const triggers: number[] = [];
  for (const [h, d] of docs) {
    const base = (langPos.get(d.lang) ?? 0) / Math.max(1, langAll.get(d.lang) ?? 1);
    const share = (d.pos + 0.5) / (d.pos + d.neg + 1);
    if (d.pos >= cfg.triggerMinDocs && share >= Math.min(0.95, base + cfg.triggerLift)) triggers.push(h);
  }
  const trig = new Set(triggers);
  const stopwords: number[] = [];
  const commonWords: Record<string, number[]> = {};
  for (const [lang, freq] of [...perLang].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const ranked = [...freq].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    for (const [h] of ranked.filter(([h]) => !trig.has(h)).slice(0, cfg.stopwordsPerLanguage))
      stopwords.push(h);
    commonWords[lang] = ranked.slice(0, cfg.commonWordsPerLanguage).map(([h]) => h);
  }
  // A language's common words that are about as common in another language ("me" in en/es/fr, "die" in en/de) say
  // nothing about which one a text is in: a word is kept for a language only where its share of that language's
  // texts is at least 3 times its share in every other language (English words in Turkish tweets stay English).
  const share = (lang: string, h: number) =>
    (perLang.get(lang)?.get(h) ?? 0) / Math.max(1, langAll.get(lang) ?? 0);
  for (const lang of Object.keys(commonWords)) {
    commonWords[lang] = commonWords[lang]!.filter((h) => {
      const own = share(lang, h);
      for (const other of perLang.keys()) if (other !== lang && share(other, h) * 3 > own) return false;
      return true;
    }).sort((a, b) => a - b);
  }
  triggers.sort((a, b) => a - b);
  return { triggers, stopwords: [...new Set(stopwords)].sort((a, b) => a - b), commonWords };
}

interface Featurised {
  offsets: Int32Array;
  feats: Int32Array;
  norms: Float32Array;
  z1: Float64Array;
  idx: number[];
}

/** Whether the runtime would send this text to the second stage (same test as LocalTextModel). */
export function gated(
  ctx: ContextModel,
  scorer: Scorer,
  platt: Float64Array,
  n: number,
  tH: Int32Array,
  flags: Int32Array,
): boolean {
  if (n === 0) return false;
  for (const k of HEADS) {
    const p = 1 / (1 + Math.exp(-(platt[2 * k]! * scorer.z[k]! + platt[2 * k + 1]!)));
    if (p >= ctx.gateP) return true;
  }
  return ctx.hasTrigger(tH, flags, n);
}

/** First-window logits of the first stage for the text just scored. */
export function firstWindow(scorer: Scorer, n: number): Float64Array {
  if (n <= scorer.window) return scorer.z;
  scorer.windowLogits(0, scorer.window);
  return scorer.acc;
}

/**
 * Context features and first-stage logits (out-of-fold where `z1Of` has them) of the first window of every gated,
 * judged text of `set` whose source weight is not 0.
 */
function featurise(
  ctx: ContextModel,
  scorer: Scorer,
  platt: Float64Array,
  set: Example[],
  weight: (e: Example) => number,
  z1Of: (e: Example) => Float64Array | undefined,
): Featurised {
  const offsets: number[] = [0];
  let feats = new Int32Array(1 << 22);
  let used = 0;
  const norms: number[] = [];
  const z1: number[] = [];
  const idx: number[] = [];
  const buf = new Int32Array(MAX_CONTEXT_FEATURES);
  set.forEach((e, i) => {
    if (!judged(e) || weight(e) === 0) return;
    const { n, tH, flags } = tokensOf(scorer, e);
    if (!gated(ctx, scorer, platt, n, tH, flags)) return;
    const first = z1Of(e) ?? firstWindow(scorer, n);
    for (let k = 0; k < N_HEADS; k++) z1.push(first[k]!);
    const b = Math.min(n, scorer.window);
    const start = used;
    for (let t = 0; t < b; t++) {
      const m = contextFeatures(tH, flags, n, t, ctx.shift, buf, 0);
      if (used + m > feats.length) {
        const nf = new Int32Array(feats.length * 2);
        nf.set(feats);
        feats = nf;
      }
      for (let j = 0; j < m; j++) feats[used++] = buf[j]!;
    }
    offsets.push(used);
    norms.push(1 / Math.sqrt(Math.max(used - start, MIN_NORM)));
    idx.push(i);
  });
  return {
    offsets: Int32Array.from(offsets),
    feats: feats.subarray(0, used),
    norms: Float32Array.from(norms),
    z1: Float64Array.from(z1),
    idx,
  };
}

/**
 * Languages are not a gate: a text sent without `language` is scored as English. The pooled calibration of gated
 * texts therefore also sees every non-English calibration text as if declared English.
 */
export function withEnglishViews(set: Example[]): Example[] {
  const out: Example[] = [];
  for (const e of set) {
    out.push(e);
    if (e.lang !== 'en') {
      const view = { ...e, lang: 'en' as const };
      englishViews.add(view);
      out.push(view);
    }
  }
  return out;
}

/** the English views made by withEnglishViews (in the pooled calibration only, never as English texts) */
const englishViews = new WeakSet<Example>();

export function isEnglishView(e: Example): boolean {
  return englishViews.has(e);
}

/**
 * Trains the context model as a residual on top of the first stage: head k's logit is z1[k] + z2[k], with z2 from
 * this stage's features, a bias and the first stage's other logits. The first-stage logits of training texts come
 * from `z1Of` (out-of-fold: a first stage trained without them), so this stage learns what the first stage gets
 * wrong on texts it has not seen, not on texts it has memorised. Then a Platt fit per head, pooled and per
 * language, on the gated calibration texts (which neither stage was trained on). `platt`: the first stage's pooled
 * calibration, used by the gate.
 */
export function trainContext(
  scorer: Scorer,
  platt: Float64Array,
  train: Example[],
  calib: Example[],
  cfg: ContextConfig,
  log: (s: string) => void,
  z1Of: (e: Example) => Float64Array | undefined = () => undefined,
): ContextWeights {
  const t0 = performance.now();
  const { triggers, stopwords, commonWords } = vocabulary(scorer, train, cfg);
  log(`context: ${triggers.length} trigger terms, ${stopwords.length} stopwords`);
  const nb = 1 << cfg.bits;
  const header: ContextHeader = {
    format: 1,
    bits: cfg.bits,
    bias: new Array(N_HEADS).fill(0),
    platt: TEXT_CATEGORIES.map(() => [1, 0] as [number, number]),
    gateP: cfg.gateP,
    triggers,
    stopwords,
    commonWords,
    training: { config: cfg },
  };
  const ctx = new ContextModel({ header, hashed: new Float32Array(nb * N_HEADS) });
  // a source of weight 0 is left out of this stage altogether (training and calibration)
  const weight = (e: Example) => exampleWeight(cfg.sourceWeight, e);
  const words = benignWords(ctx, scorer, train, cfg);
  log(`context: ${words.length} one-word benign texts added`);
  const trainSet = [...train, ...words];
  const data = featurise(ctx, scorer, platt, trainSet, weight, z1Of);
  const m = data.idx.length;
  log(
    `context: ${m} of ${trainSet.length} training texts gated (${((100 * m) / trainSet.length).toFixed(1)} %), ` +
      `${data.feats.length} features, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const ex = data.idx.map((i) => trainSet[i]!);
  const pos = new Float64Array(N_HEADS);
  const neg = new Float64Array(N_HEADS);
  for (const e of ex)
    for (const k of HEADS) {
      if (e.labels[k] === 1) pos[k]!++;
      else if (e.labels[k] === 0) neg[k]!++;
    }
  const posW = new Float64Array(N_HEADS);
  for (const k of HEADS)
    posW[k] = Math.min(cfg.maxPosWeight, Math.max(1, Math.sqrt(neg[k]! / Math.max(1, pos[k]!))));
  const runs = [cfg.seed, ...(cfg.extraSeeds ?? [])].map((seed) =>
    sgd(data, ex, weight, posW, nb, cfg, seed, log),
  );
  const W = meanOf(runs.map((r) => r.W));
  const bias = meanOf(runs.map((r) => r.bias));
  header.bias = [...bias].map(round);
  // Mixing shares, then calibration, on the gated calibration texts (and their English views), with the weights as
  // shipped (float16). First pass: each text's first-window z1 and z2 per head.
  const shipped = new ContextModel({ header, hashed: halfRound(W) });
  const views = withEnglishViews(calib).filter((e) => judged(e) && weight(e) !== 0);
  const z1s = new Map<Example, Float64Array>();
  const z2s = new Map<Example, Float64Array>();
  for (const e of views) {
    const { n, tH, flags } = tokensOf(scorer, e);
    if (!gated(shipped, scorer, platt, n, tH, flags)) continue;
    const b = Math.min(n, scorer.window);
    z1s.set(e, Float64Array.from(firstWindow(scorer, n)));
    shipped.prepare(tH, flags, n);
    shipped.windowZ2(0, b, SPAM);
    z2s.set(e, Float64Array.from(shipped.z2));
  }
  header.mixByLang = mixShares(
    [...z1s.keys()].filter(
      (e) => !englishViews.has(e) && e.source !== 'authored' && cfg.mixFromRealData.includes(e.lang),
    ),
    z1s,
    z2s,
    log,
  );
  const mixed = new ContextModel({ header, hashed: shipped.hashed });
  const cal = new CalibrationSet();
  let nGated = 0;
  for (const e of views) {
    if (!z1s.has(e)) continue;
    const { n, tH, flags } = tokensOf(scorer, e);
    nGated++;
    mixed.apply(scorer, tH, flags, n, SPAM, SUPPORTED_LANGUAGES.indexOf(e.lang));
    for (const k of HEADS) {
      if (e.labels[k]! < 0 || !calibratesHead(k, e.source, e.text)) continue;
      cal.add(k, mixed.z[k]!, e.labels[k]!, englishViews.has(e) ? null : e.lang);
    }
  }
  header.platt = TEXT_CATEGORIES.map((c, k) => {
    if (k === SPAM) return [1, 0] as [number, number];
    const [a, b] = cal.pooledFit(k);
    log(`context platt ${c}: a=${a.toFixed(3)} b=${b.toFixed(3)} (n=${cal.size(k)})`);
    return [a, b] as [number, number];
  });
  header.plattByLang = cal.byLanguage(header.platt, [SPAM]);
  log(`context per-language calibration: ${Object.keys(header.plattByLang).join(', ')}`);
  log(
    `context: ${nGated} of ${views.length} calibration views gated; ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return { header, hashed: W };
}

/** One run of the second stage's SGD (AdaGrad) over the featurised gated texts, its shuffle order from `seed`. */
function sgd(
  data: Featurised,
  ex: Example[],
  weight: (e: Example) => number,
  posW: Float64Array,
  nb: number,
  cfg: ContextConfig,
  seed: number,
  log: (s: string) => void,
): { W: Float32Array; bias: Float64Array } {
  const m = data.idx.length;
  const W = new Float32Array(nb * N_HEADS);
  const G = new Float32Array(nb * N_HEADS);
  const bias = new Float64Array(N_HEADS);
  const Gb = new Float64Array(N_HEADS);
  const order = Int32Array.from({ length: m }, (_, i) => i);
  const rnd = mulberry32(seed);
  const eps = 1e-8;
  const lr = cfg.lr;
  for (let ep = 0; ep < cfg.epochs; ep++) {
    shuffleInPlace(order, rnd);
    let loss = 0;
    for (let r = 0; r < m; r++) {
      const i = order[r]!;
      const e = ex[i]!;
      const sw = weight(e);
      const from = data.offsets[i]!;
      const to = data.offsets[i + 1]!;
      const norm = data.norms[i]!;
      const zo = i * N_HEADS;
      for (const k of HEADS) {
        const y = e.labels[k]!;
        if (y < 0) continue;
        // z1 is an offset, not an input: with every head's z1 as inputs, a text that the first stage found very
        // benign on violence got a large sexual logit from the cross-head weights, and with its own z1 rescaled
        // (learned ~0.5 on out-of-fold logits) single benign words ("cocktail", "class") doubled their odds
        let v = data.z1[zo + k]! + bias[k]!;
        for (let f = from; f < to; f++) v += W[data.feats[f]! * N_HEADS + k]! * norm;
        const p = 1 / (1 + Math.exp(-v));
        const wgt = sw * (y === 1 ? posW[k]! : 1);
        loss -= wgt * (y === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
        const g = wgt * (p - y);
        Gb[k]! += g * g;
        bias[k]! -= (lr * g) / Math.sqrt(Gb[k]! + eps);
        const gn = g * norm;
        for (let f = from; f < to; f++) {
          const q = data.feats[f]! * N_HEADS + k;
          const gf = gn + cfg.l2 * W[q]!;
          G[q]! += gf * gf;
          W[q]! -= (lr * gf) / Math.sqrt(G[q]! + eps);
        }
      }
    }
    log(`context epoch ${ep + 1} (seed ${seed}): loss ${(loss / Math.max(1, m)).toFixed(4)}`);
  }
  return { W, bias };
}

export const EVERYDAY_EMOJI = [
  '😀',
  '😂',
  '❤️',
  '👍',
  '🙏',
  '😊',
  '🎉',
  '😭',
  '🥰',
  '😍',
  '🤣',
  '👏',
  '😅',
  '🙂',
  '😎',
  '✨',
  '💯',
  '😀😀',
  '👍👍',
  '❤️❤️',
];

/**
 * One-word texts are rare in the training data and mostly insults or slurs when they occur, so without these a
 * gated benign word ("hello", "class", "cocktail") took the prior of gated texts (sexual 0.5-0.7). Generated here:
 * per language, the words found in most benign training texts (all categories 0) that are neither trigger terms nor
 * lexicon entries, each as a one-word text with every category 0.
 */
export function benignWords(
  ctx: ContextModel,
  scorer: Scorer,
  train: Example[],
  cfg: ContextConfig,
): Example[] {
  const perLanguage = cfg.benignWordsPerLanguage;
  const ratio = cfg.benignWordsRule === 'ratio';
  const candidates = ratio
    ? commonBenignWords(train, new Set<string>(), {
        perLanguage: perLanguage * 2,
        minDocs: 20,
        minRatio: cfg.benignWordsMinRatio ?? 4,
      })
    : frequentBenignWords(train);
  const out: Example[] = [];
  for (const [lang, list] of candidates) {
    // emoji-only messages are common and harmless; the sexual templates' "😈" made a lone "😀" sexual 0.8
    for (const e of EVERYDAY_EMOJI) out.push(oneWordBenign(e, lang));
    let kept = 0;
    for (const w of list) {
      if (kept >= perLanguage) break;
      if (scorer.score(w, lang) !== 1 || (scorer.fx.tokFlags[0]! & CLASS_MASK) !== 0) continue;
      if (!ratio && ctx.hasTrigger(scorer.fx.tok.tH, scorer.fx.tokFlags, 1)) continue;
      out.push(oneWordBenign(w, lang));
      kept++;
    }
  }
  return out;
}

/** benignWordsRule 'trigger' (v2): per language, the 3+-letter words of benign texts, most frequent first. */
function frequentBenignWords(train: Example[]): Map<SupportedLanguage, string[]> {
  const counts = new Map<SupportedLanguage, Map<string, number>>();
  for (const e of train) {
    if (e.source === 'authored' ? e.labels.some((v) => v === 1) : !HEADS.every((k) => e.labels[k] === 0))
      continue;
    const c = counts.get(e.lang) ?? new Map<string, number>();
    counts.set(e.lang, c);
    for (const w of new Set(e.text.toLowerCase().match(/[\p{L}\p{M}]{3,}/gu) ?? []))
      c.set(w, (c.get(w) ?? 0) + 1);
  }
  const out = new Map<SupportedLanguage, string[]>();
  for (const [lang, c] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    out.set(
      lang,
      [...c].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w),
    );
  return out;
}

/**
 * Per language and head, the share of the second stage's logit (z1 + mix * z2) that gives the lowest log-loss after a
 * Platt fit on the REAL calibration texts (labelled datasets) of that language (languages of cfg.mixFromRealData),
 * where it has at least MIX_MIN of each class; 1 elsewhere. Why: on German, Turkish and English tweets the full
 * second stage lowered ROC-AUC by 1-3 points (it learns mostly the phenomena of the authored data), while on the
 * authored test split and the functional suite it raised it by far more.
 */
const MIX_GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
/**
 * The categories the datasets of those languages are about (offensive language: GermEval 2018, OffensEval 2020,
 * OSACT). Violence and hate keep the whole second stage: German violence data (GermEval 2025, extremist posts) has
 * almost no threats, and with it deciding, "Ich bringe dich um" scored 0.25.
 */
const MIX_HEADS: string[] = ['toxicity', 'harassment', 'profanity'];
const MIX_MIN = 50;

export function mixShares(
  real: Example[],
  z1s: Map<Example, Float64Array>,
  z2s: Map<Example, Float64Array>,
  log: (s: string) => void,
  heads: string[] = MIX_HEADS,
): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const lang of SUPPORTED_LANGUAGES) {
    const rows = real.filter((e) => e.lang === lang);
    if (rows.length === 0) continue;
    const mix = new Array(N_HEADS).fill(1);
    let own = false;
    for (const k of HEADS) {
      if (!heads.includes(TEXT_CATEGORIES[k]!)) continue;
      const r = rows.filter((e) => e.labels[k]! >= 0);
      const n1 = r.filter((e) => e.labels[k] === 1).length;
      if (n1 < MIX_MIN || r.length - n1 < MIX_MIN) continue;
      const y = r.map((e) => e.labels[k]!);
      let best = 1;
      let bestLoss = Number.POSITIVE_INFINITY;
      for (const m of MIX_GRID) {
        const z = r.map((e) => z1s.get(e)![k]! + m * z2s.get(e)![k]!);
        const [a, b] = fitPlatt(z, y);
        let loss = 0;
        z.forEach((v, i) => {
          const p = 1 / (1 + Math.exp(-(a * v + b)));
          loss -= y[i] === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12);
        });
        if (loss < bestLoss - 1e-9) {
          bestLoss = loss;
          best = m;
        }
      }
      mix[k] = best;
      own = true;
    }
    if (own) {
      out[lang] = mix;
      log(`context mix ${lang}: ${mix.map((m, k) => `${TEXT_CATEGORIES[k]}=${m}`).join(' ')}`);
    }
  }
  return out;
}

/** float16 round trip, as the weights file stores them */
function halfRound(w: Float32Array): Float32Array {
  const out = new Float32Array(w.length);
  for (let i = 0; i < w.length; i++) out[i] = fromHalf(toHalf(w[i]!));
  return out;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

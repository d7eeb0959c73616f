/**
 * Rebuilds weights/text-model.bin from the datasets (deterministic: fixed data order, seeded PRNG).
 *   npm run train -w packages/text-model
 * Env: VERDICT_DATASETS_DIR (default <repo>/../shared/datasets), VERDICT_EXCLUDE_GPL=1 (drop ETHOS and
 * GermEval 2025, both GPL-3.0), VERDICT_WEIGHTS_OUT (default weights/text-model.bin), VERDICT_AUTHORED_DIR
 * (default training/authored/).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ALL_LANGS,
  LEX,
  langBit,
  N_DENSE,
  N_HEADS,
  SUPPORTED_LANGUAGES,
  TEXT_CATEGORIES,
} from '../src/constants.ts';
import { ContextModel, decodeContextWeights, encodeContextWeights } from '../src/context-model.ts';
import { hashString } from '../src/hash.ts';
import { Lexicon } from '../src/lexicon.ts';
import { Scorer } from '../src/model.ts';
import { contextFingerprint, encodeNeuralWeights } from '../src/neural-stage.ts';
import { decodeWeights, encodeWeights, type Rule, type Weights, type WeightsHeader } from '../src/weights.ts';
import { CalibrationSet, calibratesHead, calibrationFilter } from './calibration.ts';
import { type CommonWordsOptions, commonBenignWords, oneWordBenign } from './common-words.ts';
import { type ContextConfig, EVERYDAY_EMOJI, firstWindow, trainContext } from './context-trainer.ts';
import { datasetsDir, type Example, loadExamples } from './data.ts';
import { buildLexicon } from './lexicon-build.ts';
import { type NeuralConfig, trainNeural } from './neural-trainer.ts';
import { type SpamModelConfig, spamAnnotatedSource, trainSpamModel } from './spam-trainer.ts';
import { fitPlatt, type TrainConfig, trainAveraged } from './trainer.ts';

export const MODEL_VERSION = 'verdict-text-1.0.0';

/**
 * Chosen on the validation/calibration splits (TweetEval val, SMS calib, ...), never on test. Tried and rejected
 * on validation: 2^20 buckets, 6 epochs, 128-token windows, separate word/char normalisation, word-only spam
 * head, per-source training biases, char 3-5-grams only, up-weighting TweetEval or down-weighting Davidson.
 */
/**
 * v4: the benign contrasts of hate (counter-speech, negation, quoting to condemn, identity mentions) weigh 6 in both
 * stages. With the v6 data (implicit hate, incitement, implicit threats) they were read as harmful more often; chosen
 * on the team-authored CALIBRATION split (never the suite), among weights 3 (context) / 1 (first stage), 6 and 9, and 6
 * with idioms, untargeted profanity, insults of objects and reclaimed terms added: correct 83.2 / 83.6 / 83.5 / 83.4 %
 * (harmful found 83.6 / 83.4 / 82.9 / 83.1, benign passed 82.8 / 83.8 / 84.1 / 83.7).
 */
const HATE_CONTRASTS_WEIGHT = {
  'authored:counter_speech': 6,
  'authored:negation': 6,
  'authored:quotation_condemn': 6,
  'authored:identity_positive': 6,
  'authored:identity_neutral': 6,
};

export const CONFIG: TrainConfig = {
  bits: 18,
  window: 64,
  epochs: 3,
  lr: 0.3,
  l2: 1e-5,
  seed: 20251121,
  // v3: the team's everyday chat weighs 15 (training/authored/<lang>.everyday.jsonl, <lang>.chat.*; see CONTEXT)
  sourceWeight: {
    offenseval2020_tr: 0.7,
    spamassassin: 0.6,
    reddit_cssrs: 0.5,
    davidson: 0.8,
    sms_spam: 3,
    'authored:benign_everyday': 15,
    ...HATE_CONTRASTS_WEIGHT,
  },
  maxPosWeight: 4,
  sourceBias: false,
  wordOnlyHeads: [],
  // Spam: text-level SMS/e-mail cues (src/features.ts SPAM_CUES) and 10 epochs at lr 0.15 for the spam head only
  // (chosen on the SMS calibration split: ROC-AUC 0.985 → 0.990; 6 epochs, lr 0.3/0.6, l2 0, SMS weight 1 or 6,
  // SpamAssassin weight 0.2 and a larger positive-class weight were no better). Other heads are unchanged.
  spamCues: true,
  epochsByHead: { spam: 10 },
  lrByHead: { spam: 0.15 },
};

/**
 * Dedicated spam model (src/spam-features.ts, training/spam-trainer.ts): its own 2^17 hashed buckets of SMS-suited
 * word/char n-grams + the spam cues, trained on spam-annotated data only; its logit is added to the shared spam
 * head's logit. Chosen on the SMS calibration split (cross-fitted short-text Platt, F1 at 0.5): shared head alone
 * 0.941, dedicated model alone 0.941 (ROC-AUC 0.989 → 0.997, but 164 of 15,884 short non-spam tweets/comments in
 * the calibration splits ≥ 0.5 instead of 3), sum 0.951 (8 of 15,884). SMS weight 3 (1: F1 0.942); 5 or 20
 * epochs, lr 0.5, L2 0, positive-class weight 2-3, averaged SGD, 2^16 buckets, SpamAssassin weight 0-0.3 and
 * training on all datasets (other sources as negatives, weight 0.01-1) were no better. Char n-grams (3-5: F1 0.951;
 * 3, 4 or 5 only: 0.951) cost 4-8 µs per 280-char text, which broke the 20,000 texts/s budget (17,000 measured
 * with 3-5-grams), and were no better than word unigrams + bigrams alone (0.956, ROC-AUC 0.994): shipped word-only.
 */
export const SPAM_MODEL: SpamModelConfig = {
  bits: 17,
  charGrams: 0,
  epochs: 10,
  lr: 0.2,
  l2: 1e-6,
  seed: 12345,
  sourceWeight: { sms_spam: 3 },
};

/**
 * Second stage (src/context-model.ts, training/context-trainer.ts): word pairs, skip-pairs, trigrams and lexicon
 * class × neighbour, hashed across languages, on the texts the gate sends to it.
 */
export const CONTEXT: ContextConfig = {
  bits: 20,
  epochs: 3,
  lr: 0.2,
  l2: 1e-6,
  seed: 20261124,
  gateP: 0.15,
  triggerMinDocs: 4,
  triggerLift: 0.3,
  stopwordsPerLanguage: 60,
  benignWordsPerLanguage: 400,
  // v3: one-word benign texts are the words at least twice as frequent in benign as in harmful training texts, trigger
  // terms included ("hi" and "nice" open sexual-harassment templates): with the v2 rule "ok" and "hi" read sexual 0.7-0.8
  benignWordsRule: 'ratio',
  benignWordsMinRatio: 2,
  commonWordsPerLanguage: 150,
  mixFromRealData: ['de', 'tr', 'ar'],
  // C-SSRS posts carry their user's label (supportive and at-risk users both write about suicide): left out here;
  // Davidson (84 % "offensive", identity terms) down-weighted; authored text up-weighted (the phenomena it covers
  // are missing from the datasets). Chosen on the authored calibration split and the real calibration splits.
  // v3: the team's everyday chat (benign_everyday: greetings, thanks, plans) 5 times the other authored text, and the
  // one-word benign texts 5 times, so that short harmless messages stop taking the prior of the (mostly harmful) texts
  // the gate sends here
  sourceWeight: {
    offenseval2020_tr: 0.7,
    spamassassin: 0.6,
    reddit_cssrs: 0,
    davidson: 0.3,
    authored: 3,
    'authored:benign_everyday': 15,
    generated_words: 5,
    ...HATE_CONTRASTS_WEIGHT,
  },
  maxPosWeight: 4,
};

/**
 * Third stage (src/neural-stage.ts, training/neural-trainer.ts): embedding bag over hashed unigrams and lexicon
 * classes, one hidden layer that also reads the second stage's verdicts, trained as boosting on the fixed logits of the first two stages (out of fold) on
 * the texts the gate sends to the second stage. Shipped from v7 (model card); VERDICT_TRAIN_OVERRIDES='{"neural": null}'
 * trains the two stages alone, '{"neural": {...}}' merges changes into this configuration.
 */
export const NEURAL: NeuralConfig = {
  bits: 16,
  pairs: false,
  dim: 32,
  hidden: 48,
  epochs: 1,
  lr: 0.1,
  l2: 1e-6,
  seed: 20261202,
  initScale: 0.1,
  logitInputs: true,
  contextFolds: 2,
  mixLangs: ['en', 'de', 'tr', 'ar'],
  mixHeads: ['toxicity', 'harassment', 'profanity', 'hate'],
  gateP: 0,
};
// Chosen on the authored calibration split (and the datasets' calibration splits): 2^16 rows (2^17 on v6's data:
// 85.5 % both, half the file and load), 1 epoch (2-4 memorised templates),
// lr 0.1 (0.02-0.2 tried), the second stage's verdicts as inputs (+0.5 points), unigrams + classes (pairs no better,
// twice the time), 32 x 48 (16 x 32: about half the gain), mixing shares in en, de, tr, ar incl. hate (see the card).

/** Whether a run trains the third stage and writes neural-model.bin beside text-model.bin. */
let TRAIN_NEURAL = true;

/**
 * Spam is calibrated only on the calibration splits of data that is annotated for spam (SMS, SpamAssassin,
 * generated comment spam and hard negatives), separately for message-length texts (≤ SPAM_SHORT_CHARS: SMS, chat,
 * comments) and longer texts (e-mail). Tweets, forum posts etc. carry spam = 0 only by assumption; pooling them
 * (and e-mail) into one Platt fit left short SMS spam under 0.5 (SMS calib F1 at 0.5, cross-fitted: 0.87 pooled,
 * 0.95 with the short-text fit on the shipped features; see the model card).
 */
export const SPAM_SHORT_CHARS = 400;
const SPAM_HEAD = TEXT_CATEGORIES.indexOf('spam');
const spamCalibSource = spamAnnotatedSource;

/** Languages without a labelled dataset (authored data only): their own-language list hits get a profanity floor. */
const LEXICON_ONLY = ALL_LANGS & ~(langBit('en') | langBit('de') | langBit('tr') | langBit('ar'));

/**
 * Rule floors (max-combination; documented in the model card). Heads: see TEXT_CATEGORIES. The floors that set
 * toxicity, harassment, violence and self-harm from word lists alone in languages without datasets are gone: every
 * language now has learned signal (team-authored data), and a floor cannot tell "this printer is shit" from abuse.
 */
export const RULES: Rule[] = [
  { head: 4, flag: LEX.SEXUAL_EXPLICIT, langs: ALL_LANGS, p: 0.6 },
  // FOREIGN = an entry of the text's own language list (LDNOOBW or curated), never an English-list word
  { head: 6, flag: LEX.FOREIGN, langs: LEXICON_ONLY, p: 0.75 },
];

/**
 * Which team-authored texts the first stage trains on: 'all', 'no-dataset-langs' (every language, but in en/de/tr/ar,
 * which have labelled datasets, only for the heads other than toxicity, harassment and profanity, so that those stay
 * what the datasets make them) or 'none'. The second stage always trains on all of them.
 */
let STAGE1_AUTHORED: 'all' | 'no-dataset-langs' | 'none' = 'no-dataset-langs';
const DATASET_LANGS = new Set(['en', 'de', 'tr', 'ar']);

/** One-word benign texts for the first stage (training/common-words.ts); perLanguage 0 turns them off. */
let STAGE1_COMMON_WORDS: CommonWordsOptions = { perLanguage: 400, minDocs: 20, minRatio: 4 };

/**
 * Experiments: VERDICT_TRAIN_OVERRIDES='{"config": {...}, "context": {...}, "stage1Authored": "all"}' merges into
 * CONFIG and CONTEXT (one level deep for sourceWeight), so variants can be compared without editing this file.
 */
function applyOverrides(): void {
  const raw = process.env.VERDICT_TRAIN_OVERRIDES;
  if (!raw) return;
  const o = JSON.parse(raw) as {
    config?: Partial<TrainConfig>;
    context?: Partial<ContextConfig>;
    stage1Authored?: typeof STAGE1_AUTHORED;
    oofFolds?: number;
    calibrateOnAnnotated?: string[];
    unannotatedShare?: number;
    stage1CommonWords?: Partial<CommonWordsOptions>;
    neural?: Partial<NeuralConfig> | null;
  };
  if (o.neural === null) TRAIN_NEURAL = false;
  else if (o.neural) {
    TRAIN_NEURAL = true;
    Object.assign(NEURAL, o.neural);
  }
  if (o.calibrateOnAnnotated) calibrationFilter.heads = o.calibrateOnAnnotated;
  if (o.unannotatedShare !== undefined) calibrationFilter.unannotatedShare = o.unannotatedShare;
  if (o.oofFolds) OOF_FOLDS = o.oofFolds;
  if (o.stage1CommonWords) STAGE1_COMMON_WORDS = { ...STAGE1_COMMON_WORDS, ...o.stage1CommonWords };
  if (o.stage1Authored) STAGE1_AUTHORED = o.stage1Authored;
  const merge = <T extends { sourceWeight: Record<string, number> }>(
    base: T,
    over: Partial<T> | undefined,
  ) => {
    if (!over) return;
    const sw = { ...base.sourceWeight, ...(over.sourceWeight ?? {}) };
    Object.assign(base, over, { sourceWeight: sw });
  };
  merge(CONFIG, o.config);
  merge(CONTEXT, o.context);
  console.log(`overrides: ${raw}`);
}

function main(): void {
  applyOverrides();
  const started = performance.now();
  const log = (s: string) => console.log(s);
  const dir = datasetsDir();
  const excludeGpl = process.env.VERDICT_EXCLUDE_GPL === '1';
  log(`datasets: ${dir}${excludeGpl ? ' (GPL-3.0 sets excluded)' : ''}`);
  const { data: lexData, stats: lexStats } = buildLexicon(dir);
  const lex = new Lexicon(lexData);
  log(`lexicon: ${lexData.terms.length} terms`);
  const all = loadExamples(dir, { excludeGpl });
  const trainSet = all.filter((e) => e.split === 'train');
  const calibSet = all.filter((e) => e.split === 'calib');
  log(`examples: ${all.length} (train ${trainSet.length}, calib ${calibSet.length})`);

  const stage1Set = trainSet.flatMap((e) => {
    if (e.source !== 'authored' || STAGE1_AUTHORED === 'all') return [e];
    if (STAGE1_AUTHORED === 'none') return [];
    if (!DATASET_LANGS.has(e.lang)) return [e];
    // en, de, tr, ar: the offensive-language heads stay what the datasets make them; the other heads (threats,
    // self-harm, sexual content, hate), which those datasets hardly label, learn from the authored texts too
    const labels = Int8Array.from(e.labels);
    for (const c of ['toxicity', 'harassment', 'profanity'] as const) labels[TEXT_CATEGORIES.indexOf(c)] = -1;
    return [{ ...e, labels }];
  });
  // Emoji-only messages are common and harmless, and the first stage had no such text: with the v2.1 authored data a
  // lone "😀" read as sexual 0.80 there (0.53 after the second stage, which already learns these texts). The same
  // one-word benign texts as the second stage's, for the first stage too (every category 0, spam unknown).
  for (const lang of SUPPORTED_LANGUAGES)
    for (const text of EVERYDAY_EMOJI) stage1Set.push(oneWordBenign(text, lang));
  if (STAGE1_COMMON_WORDS.perLanguage > 0) {
    const words = commonBenignWords(trainSet, new Set(lexData.terms), STAGE1_COMMON_WORDS);
    let added = 0;
    for (const [lang, list] of words)
      for (const text of list) {
        stage1Set.push(oneWordBenign(text, lang));
        added++;
      }
    log(`first stage: ${added} one-word benign texts (common words of benign texts)`);
  }
  const params = trainAveraged(stage1Set, lex, CONFIG, log);
  const spamModel = trainSpamModel(trainSet, SPAM_MODEL, log);
  const header: WeightsHeader = {
    format: 1,
    modelVersion: MODEL_VERSION,
    bits: CONFIG.bits,
    heads: [...TEXT_CATEGORIES],
    window: CONFIG.window,
    stride: CONFIG.window / 2,
    bias: [...params.bias],
    dense: denseRows(params.dense),
    platt: TEXT_CATEGORIES.map(() => [1, 0] as [number, number]),
    spamCues: [...params.cues].map(round),
    spamModel: {
      bits: SPAM_MODEL.bits,
      charGrams: SPAM_MODEL.charGrams,
      bias: round(spamModel.bias),
      cues: [...spamModel.cues].map(round),
    },
    rules: RULES,
    lexicon: lexData,
    training: {
      config: CONFIG,
      spamModel: SPAM_MODEL,
      excludeGpl,
      lexiconSources: lexStats,
      counts: countBySource(all),
    },
  };
  // Calibrate the float16 weights exactly as shipped.
  const provisional = decodeWeights(
    encodeWeights({ header, hashed: params.hashed, spamHashed: spamModel.hashed }),
  );
  const scorer = new Scorer(provisional);
  const cal = new CalibrationSet();
  const spamZ: [number[], number[]] = [[], []]; // short, long
  const spamY: [number[], number[]] = [[], []];
  for (const e of calibSet) {
    scorer.score(e.text, e.lang);
    for (let k = 0; k < N_HEADS; k++) {
      const y = e.labels[k]!;
      if (y < 0) continue;
      if (calibratesHead(k, e.source, e.text)) cal.add(k, scorer.z[k]!, y, e.lang);
      if (k === SPAM_HEAD && spamCalibSource(e.source)) {
        const d = e.text.length <= SPAM_SHORT_CHARS ? 0 : 1;
        spamZ[d].push(scorer.z[k]!);
        spamY[d].push(y);
      }
    }
  }
  header.platt = TEXT_CATEGORIES.map((c, k) => {
    const [a, b] = cal.pooledFit(k);
    log(`platt ${c}: a=${a.toFixed(3)} b=${b.toFixed(3)} (n=${cal.size(k)})`);
    return [a, b] as [number, number];
  });
  const [sa, sb] = fitPlatt(spamZ[0], spamY[0]);
  const [la, lb] = fitPlatt(spamZ[1], spamY[1]);
  log(
    `platt spam short: a=${sa.toFixed(3)} b=${sb.toFixed(3)} (n=${spamZ[0].length}, ${count1(spamY[0])} spam)`,
  );
  log(
    `platt spam long: a=${la.toFixed(3)} b=${lb.toFixed(3)} (n=${spamZ[1].length}, ${count1(spamY[1])} spam)`,
  );
  header.spamPlatt = {
    shortMaxChars: SPAM_SHORT_CHARS,
    short: [round(sa), round(sb)],
    long: [round(la), round(lb)],
  };
  header.platt[SPAM_HEAD] = header.spamPlatt.long;
  header.plattByLang = cal.byLanguage(header.platt, [SPAM_HEAD]);
  log(`per-language calibration: ${Object.keys(header.plattByLang).join(', ')}`);
  const final: Weights = { header, hashed: provisional.hashed, spamHashed: provisional.spamHashed };
  const bytes = encodeWeights(final);
  const out =
    process.env.VERDICT_WEIGHTS_OUT ?? fileURLToPath(new URL('../weights/text-model.bin', import.meta.url));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  const sha = createHash('sha256').update(bytes).digest('hex');
  log(`wrote ${out}: ${(bytes.length / 1e6).toFixed(2)} MB, sha256 ${sha}`);

  const oof = outOfFold(stage1Set, lex, header, log);
  const ctx = trainContext(
    scorer, // the shipped first stage: the final file differs from `provisional` only in calibration
    Float64Array.from(header.platt.flat()),
    trainSet,
    calibSet,
    CONTEXT,
    log,
    (e) => oof.get(e),
  );
  const ctxBytes = encodeContextWeights(ctx);
  const ctxOut =
    process.env.VERDICT_CONTEXT_WEIGHTS_OUT ?? out.replace(/text-model\.bin$/, 'context-model.bin');
  writeFileSync(ctxOut, ctxBytes);
  log(
    `wrote ${ctxOut}: ${(ctxBytes.length / 1e6).toFixed(2)} MB, sha256 ${createHash('sha256').update(ctxBytes).digest('hex')}`,
  );
  if (TRAIN_NEURAL) {
    const nn = trainNeural({
      scorer,
      ctx: new ContextModel(decodeContextWeights(ctxBytes)), // the second stage as shipped (float16)
      platt: Float64Array.from(header.platt.flat()),
      train: trainSet,
      calib: calibSet,
      ctxCfg: CONTEXT,
      cfg: NEURAL,
      log,
      z1Of: (e) => oof.get(e),
    });
    // the third stage is calibrated on this second stage: loadTextModel refuses it beside another one
    nn.header.contextFingerprint = contextFingerprint(ctxBytes);
    const nnBytes = encodeNeuralWeights(nn);
    const nnOut =
      process.env.VERDICT_NEURAL_WEIGHTS_OUT ?? out.replace(/text-model\.bin$/, 'neural-model.bin');
    if (nnOut === out)
      throw new Error('VERDICT_WEIGHTS_OUT must end in text-model.bin (or set VERDICT_NEURAL_WEIGHTS_OUT)');
    writeFileSync(nnOut, nnBytes);
    log(
      `wrote ${nnOut}: ${(nnBytes.length / 1e6).toFixed(2)} MB, sha256 ${createHash('sha256').update(nnBytes).digest('hex')}`,
    );
  }
  log(`training time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Folds of the out-of-fold first stages (training/context-trainer.ts: why the second stage needs them). */
let OOF_FOLDS = 2;

/**
 * First-window logits of every first-stage training text from a first stage trained without it: OOF_FOLDS first
 * stages (same configuration, every head 3 epochs, no spam cues or spam model: the second stage never reads spam),
 * each trained on the other folds.
 */
function outOfFold(
  set: Example[],
  lex: Lexicon,
  header: WeightsHeader,
  log: (s: string) => void,
): Map<Example, Float64Array> {
  const out = new Map<Example, Float64Array>();
  const t0 = performance.now();
  for (let f = 0; f < OOF_FOLDS; f++) {
    const inFold = (e: Example) => (hashString(`oof:${e.source}:${e.text}`) >>> 0) % OOF_FOLDS === f;
    const params = trainAveraged(
      set.filter((e) => !inFold(e)),
      lex,
      { ...CONFIG, spamCues: false, epochsByHead: {}, lrByHead: {} },
      () => {},
    );
    const foldHeader: WeightsHeader = {
      ...header,
      bias: [...params.bias],
      dense: denseRows(params.dense),
      spamCues: undefined,
      spamModel: undefined,
      spamPlatt: undefined,
    };
    const scorer = new Scorer(decodeWeights(encodeWeights({ header: foldHeader, hashed: params.hashed })));
    for (const e of set)
      if (inFold(e)) out.set(e, Float64Array.from(firstWindow(scorer, scorer.score(e.text, e.lang))));
  }
  log(`out-of-fold first stages: ${OOF_FOLDS} folds, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return out;
}

/** The trainer's dense weights [d * N_HEADS + k] as the header's rows dense[d][k]. */
function denseRows(dense: Float64Array): number[][] {
  return Array.from({ length: N_DENSE }, (_, d) =>
    Array.from({ length: N_HEADS }, (_, k) => dense[d * N_HEADS + k]!),
  );
}

function count1(ys: number[]): number {
  return ys.filter((y) => y === 1).length;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

function countBySource(all: { source: string; split: string }[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const e of all) {
    const s = out[e.source] ?? {};
    s[e.split] = (s[e.split] ?? 0) + 1;
    out[e.source] = s;
  }
  return out;
}

// only when run (training/neural-dev.ts imports the configurations)
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

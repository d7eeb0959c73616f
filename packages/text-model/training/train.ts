/**
 * Rebuilds weights/text-model.bin from the datasets (deterministic: fixed data order, seeded PRNG).
 *   npm run train -w packages/text-model
 * Env: VERDICT_DATASETS_DIR (default <repo>/../shared/datasets), VERDICT_EXCLUDE_GPL=1 (drop ETHOS and
 * GermEval 2025, both GPL-3.0), VERDICT_WEIGHTS_OUT (default weights/text-model.bin).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_LANGS, LEX, langBit, N_DENSE, N_HEADS, TEXT_CATEGORIES } from '../src/constants.ts';
import { Lexicon } from '../src/lexicon.ts';
import { Scorer } from '../src/model.ts';
import { decodeWeights, encodeWeights, type Rule, type Weights, type WeightsHeader } from '../src/weights.ts';
import { datasetsDir, loadExamples } from './data.ts';
import { buildLexicon } from './lexicon-build.ts';
import { fitPlatt, type TrainConfig, train } from './trainer.ts';

export const MODEL_VERSION = 'verdict-text-1.0.0';

/**
 * Chosen on the validation/calibration splits (TweetEval val, SMS calib, ...), never on test. Tried and rejected
 * on validation: 2^20 buckets, 6 epochs, 128-token windows, separate word/char normalisation, word-only spam
 * head, per-source training biases, char 3-5-grams only, up-weighting TweetEval or down-weighting Davidson.
 */
export const CONFIG: TrainConfig = {
  bits: 18,
  window: 64,
  epochs: 3,
  lr: 0.3,
  l2: 1e-5,
  seed: 20251121,
  sourceWeight: { offenseval2020_tr: 0.7, spamassassin: 0.6, reddit_cssrs: 0.5, davidson: 0.8, sms_spam: 3 },
  maxPosWeight: 4,
  sourceBias: false,
  wordOnlyHeads: [],
};

/** Languages with no labelled training data: their lexicon hits get documented probability floors. */
const LEXICON_ONLY = ALL_LANGS & ~(langBit('en') | langBit('de') | langBit('tr') | langBit('ar'));

/** Rule floors (max-combination; documented in the model card). Heads: see TEXT_CATEGORIES. */
export const RULES: Rule[] = [
  { head: 4, flag: LEX.SEXUAL_EXPLICIT, langs: ALL_LANGS, p: 0.6 },
  // FOREIGN = an entry of the text's own language list (LDNOOBW or curated), never an English-list word
  { head: 6, flag: LEX.FOREIGN, langs: LEXICON_ONLY, p: 0.75 },
  { head: 0, flag: LEX.FOREIGN, langs: LEXICON_ONLY, p: 0.6 },
  { head: 0, flag: LEX.INSULT | LEX.FOREIGN, langs: LEXICON_ONLY, p: 0.7 },
  { head: 1, flag: LEX.INSULT | LEX.FOREIGN, langs: LEXICON_ONLY, p: 0.5 },
  { head: 3, flag: LEX.VIOLENCE, langs: LEXICON_ONLY, p: 0.6 },
  { head: 5, flag: LEX.SELF_HARM, langs: LEXICON_ONLY, p: 0.6 },
  { head: 4, flag: LEX.SEXUAL_EXPLICIT, langs: LEXICON_ONLY, p: 0.7 },
];

function main(): void {
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

  const params = train(trainSet, lex, CONFIG, log);
  const header: WeightsHeader = {
    format: 1,
    modelVersion: MODEL_VERSION,
    bits: CONFIG.bits,
    heads: [...TEXT_CATEGORIES],
    window: CONFIG.window,
    stride: CONFIG.window / 2,
    bias: [...params.bias],
    dense: Array.from({ length: N_DENSE }, (_, d) =>
      Array.from({ length: N_HEADS }, (_, k) => params.dense[d * N_HEADS + k]!),
    ),
    platt: TEXT_CATEGORIES.map(() => [1, 0] as [number, number]),
    rules: RULES,
    lexicon: lexData,
    training: {
      config: CONFIG,
      excludeGpl,
      lexiconSources: lexStats,
      counts: countBySource(all),
    },
  };
  // Calibrate the float16 weights exactly as shipped.
  const provisional = decodeWeights(encodeWeights({ header, hashed: params.hashed }));
  const scorer = new Scorer(provisional);
  const zs: number[][] = TEXT_CATEGORIES.map(() => []);
  const ys: number[][] = TEXT_CATEGORIES.map(() => []);
  for (const e of calibSet) {
    scorer.score(e.text, e.lang);
    for (let k = 0; k < N_HEADS; k++) {
      const y = e.labels[k]!;
      if (y < 0) continue;
      zs[k]!.push(scorer.z[k]!);
      ys[k]!.push(y);
    }
  }
  header.platt = TEXT_CATEGORIES.map((c, k) => {
    const [a, b] = fitPlatt(zs[k]!, ys[k]!);
    log(`platt ${c}: a=${a.toFixed(3)} b=${b.toFixed(3)} (n=${zs[k]!.length})`);
    return [round(a), round(b)] as [number, number];
  });
  const final: Weights = { header, hashed: provisional.hashed };
  const bytes = encodeWeights(final);
  const out =
    process.env.VERDICT_WEIGHTS_OUT ?? fileURLToPath(new URL('../weights/text-model.bin', import.meta.url));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  const sha = createHash('sha256').update(bytes).digest('hex');
  log(`wrote ${out}: ${(bytes.length / 1e6).toFixed(2)} MB, sha256 ${sha}`);
  log(`training time ${((performance.now() - started) / 1000).toFixed(1)} s`);
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

main();

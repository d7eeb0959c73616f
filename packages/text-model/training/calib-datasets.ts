/**
 * The labelled datasets' CALIBRATION splits (never their test splits) for one or more sets of weights, side by side:
 * macro-F1 at 0.5 (the head each dataset is judged on in the model card's headline table) and ROC-AUC, plus the
 * team-authored calibration split. For choosing training configurations without looking at a test split or the suite.
 *   node --import tsx training/calib-datasets.ts <weights dir> [<weights dir> ...]
 */
import type { TextCategory, TextModel } from '../src/index.ts';
import { AUTHORED_DIR, loadAuthoredTraining } from './authored.ts';
import { authoredSplit, loadExamples } from './data.ts';
import { pick } from './eval-authored.ts';
import { prf, rocAuc } from './metrics.ts';
import { scoreSuite, suiteSummary } from './suite-eval.ts';
import { loadWeightsDir } from './weights-dir.ts';

const DATASETS: [string, TextCategory][] = [
  ['tweeteval_offensive', 'toxicity'],
  ['tweeteval_hate', 'hate'],
  ['germeval2018', 'toxicity'],
  ['germeval2025_violence', 'violence'],
  ['offenseval2020_tr', 'toxicity'],
  ['osact2020', 'toxicity'],
  ['l_hsab', 'toxicity'],
];

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: calib-datasets.ts <weights dir> [<weights dir> ...]');
  process.exit(2);
}
const examples = loadExamples().filter((e) => e.split === 'calib' && DATASETS.some(([s]) => s === e.source));
const authored = loadAuthoredTraining(AUTHORED_DIR).filter((a) => authoredSplit(a) === 'calib');

function datasetCells(model: TextModel): string[] {
  const scored = examples.map((e) => ({ e, s: model.classify(e.text, { language: e.lang }).scores }));
  return DATASETS.map(([source, cat]) => {
    const { s, y } = pick(scored, (e) => e.source === source, cat);
    return `${(100 * prf(s, y).macroF1).toFixed(1)} (${rocAuc(s, y).toFixed(3)})`;
  });
}

console.log(`| weights | ${DATASETS.map(([s, c]) => `${s} ${c}`).join(' | ')} |`);
console.log(`|---|${DATASETS.map(() => '---').join('|')}|`);
const summaries: string[] = [];
for (const dir of dirs) {
  const model = loadWeightsDir(dir);
  console.log(`| ${dir} | ${datasetCells(model).join(' | ')} |`);
  summaries.push(`${dir}: ${suiteSummary(scoreSuite(model, authored))}`);
}
console.log('\nteam-authored calibration split:');
for (const s of summaries) console.log(s);

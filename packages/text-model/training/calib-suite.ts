/**
 * The functional suite's tables (training/suite-eval.ts) on the team-authored CALIBRATION split instead of the suite:
 * for choosing data and training configuration without looking at the suite. The split is the trainer's (70/15/15 by
 * text, or by template); pass a fixed authored directory so that trials with different data compare on the same texts.
 *   node --import tsx training/calib-suite.ts [weights dir] [authored dir]
 * (defaults: the shipped weights/, training/authored/). TABLES=1 adds the per-language and per-phenomenon tables.
 */
import { fileURLToPath } from 'node:url';
import { AUTHORED_DIR, loadAuthoredTraining } from './authored.ts';
import { authoredSplit } from './data.ts';
import { scoreSuite, suiteSummary, suiteTables } from './suite-eval.ts';
import { loadWeightsDir } from './weights-dir.ts';

const wdir = process.argv[2] ?? fileURLToPath(new URL('../weights', import.meta.url));
const dir = process.argv[3]
  ? process.argv[3].endsWith('/')
    ? process.argv[3]
    : `${process.argv[3]}/`
  : AUTHORED_DIR;
const model = loadWeightsDir(wdir);
const items = loadAuthoredTraining(dir).filter((a) => authoredSplit(a) === 'calib');
const rows = scoreSuite(model, items);
console.log(`## ${dir} (calibration split), weights ${wdir}`);
console.log(suiteSummary(rows));
if (process.env.TABLES) console.log(suiteTables(rows));
console.log(`sent as English: ${suiteSummary(scoreSuite(model, items, 'en'))}`);

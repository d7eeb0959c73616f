/**
 * Side-by-side suite-style tables for two sets of weights, to read what a retraining moved:
 *   node --import tsx training/compare.ts <weights dir A> <weights dir B> [calib|suite] [authored dir]
 * `calib` (default) scores the team-authored calibration split (for choosing; pass a fixed authored dir so both
 * columns see the same texts); `suite` scores the functional suite (for reporting what a chosen change did).
 * Rows: overall, per language, per phenomenon; cells: harmful/benign correct, and hate cases correct on the hate score.
 */
import { AUTHORED_DIR, loadAuthoredTraining, loadSuite } from './authored.ts';
import { authoredSplit } from './data.ts';
import { type SuiteRow, scoreSuite } from './suite-eval.ts';
import { loadWeightsDir } from './weights-dir.ts';

const [wa, wb, mode = 'calib', dirArg] = process.argv.slice(2);
if (!wa || !wb) {
  console.error('usage: compare.ts <weights dir A> <weights dir B> [calib|suite] [authored dir]');
  process.exit(2);
}
const dir = dirArg ? (dirArg.endsWith('/') ? dirArg : `${dirArg}/`) : AUTHORED_DIR;
const items =
  mode === 'suite' ? loadSuite() : loadAuthoredTraining(dir).filter((a) => authoredSplit(a) === 'calib');
const rowsA = scoreSuite(loadWeightsDir(wa), items);
const rowsB = scoreSuite(loadWeightsDir(wb), items);

const pct = (a: number, n: number) => (n ? ((100 * a) / n).toFixed(1) : '–');
function cells(rows: SuiteRow[]): { ok: string; hate: string } {
  let ok = 0;
  let h = 0;
  let hOk = 0;
  for (const r of rows) {
    if (r.harmful === r.predHarmful) ok++;
    if (r.hateCase) {
      h++;
      if (r.item.labels.includes('hate') === r.scores.hate >= 0.5) hOk++;
    }
  }
  return { ok: pct(ok, rows.length), hate: pct(hOk, h) };
}
function line(label: string, pred: (r: SuiteRow) => boolean): string {
  const a = cells(rowsA.filter(pred));
  const b = cells(rowsB.filter(pred));
  const n = rowsA.filter(pred).length;
  const d = (x: string, y: string) => (x === '–' ? '' : (Number(y) - Number(x)).toFixed(1));
  return `| ${label} | ${n} | ${a.ok} | ${b.ok} | ${d(a.ok, b.ok)} | ${a.hate} | ${b.hate} | ${d(a.hate, b.hate)} |`;
}
console.log(`## ${mode === 'suite' ? 'functional suite' : `calibration split of ${dir}`}: A=${wa} B=${wb}\n`);
console.log('| set | n | correct A | correct B | Δ | hate cases A | hate cases B | Δ |');
console.log('|---|---|---|---|---|---|---|---|');
console.log(line('all', () => true));
console.log(line('harmful', (r) => r.harmful));
console.log(line('benign', (r) => !r.harmful));
for (const l of [...new Set(items.map((i) => i.lang))].sort()) console.log(line(l, (r) => r.item.lang === l));
for (const p of [...new Set(items.map((i) => i.phenomenon))].sort())
  console.log(line(p, (r) => r.item.phenomenon === p));

/**
 * Model-card tables for team-authored data (training/authored: its held-out test split) and the functional suite
 * (suite/), printed by eval.ts.
 */
import type { TextCategory, TextModel } from '../src/index.ts';
import { TEXT_CATEGORIES } from '../src/index.ts';
import type { Example } from './data.ts';
import { auprc, ece, prf, reliability, rocAuc } from './metrics.ts';
import { scoreSuite, suiteSummary, suiteTables } from './suite-eval.ts';

const f3 = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));
const CATS = TEXT_CATEGORIES.filter((c) => c !== 'spam');

export interface Scored {
  e: Example;
  s: Record<TextCategory, number>;
}

/** Scores and labels of category `cat` for the rows that `pred` keeps and that are labelled for it. */
export function pick(
  rows: Scored[],
  pred: (e: Example) => boolean,
  cat: TextCategory,
): { s: number[]; y: number[] } {
  const k = TEXT_CATEGORIES.indexOf(cat);
  const s: number[] = [];
  const y: number[] = [];
  for (const r of rows) {
    if (!pred(r.e) || r.e.labels[k]! < 0) continue;
    s.push(r.s[cat]);
    y.push(r.e.labels[k]!);
  }
  return { s, y };
}

export function authoredTables(scored: Scored[]): void {
  const test = scored.filter((r) => r.e.source === 'authored' && r.e.split === 'test');
  console.log('\n### Team-authored text, held-out test split (per category)\n');
  console.log(
    `${test.length} texts in 17 languages; split 70/15/15 by text, or by template so that one template's expansions never straddle splits.\n`,
  );
  console.log('| category | n | positives | ROC-AUC | AUPRC | F1@0.5 | P@0.5 | R@0.5 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const cat of CATS) {
    const t = pick(test, () => true, cat);
    const r = prf(t.s, t.y);
    console.log(
      `| ${cat} | ${t.y.length} | ${t.y.filter((v) => v === 1).length} | ${f3(rocAuc(t.s, t.y))} | ${f3(auprc(t.s, t.y))} | ${f3(r.f1)} | ${f3(r.precision)} | ${f3(r.recall)} |`,
    );
  }
  console.log(
    '\n### Team-authored text, held-out test split (per language; ROC-AUC / F1@0.5 per category)\n',
  );
  console.log(`| language | n | ${CATS.join(' | ')} |`);
  console.log(`|---|---|${CATS.map(() => '---').join('|')}|`);
  const langs = [...new Set(test.map((r) => r.e.lang))].sort();
  for (const lang of langs) {
    const rows = test.filter((r) => r.e.lang === lang);
    const cells = CATS.map((cat) => {
      const t = pick(rows, () => true, cat);
      const npos = t.y.filter((v) => v === 1).length;
      if (npos < 3 || npos === t.y.length) return '–';
      return `${f3(rocAuc(t.s, t.y))} / ${f3(prf(t.s, t.y).f1)}`;
    });
    console.log(`| ${lang} | ${rows.length} | ${cells.join(' | ')} |`);
  }
  console.log('\n### Calibration on the team-authored test split\n');
  console.log('| category | ECE | 0–0.2 | 0.2–0.4 | 0.4–0.6 | 0.6–0.8 | 0.8–1.0 |');
  console.log('|---|---|---|---|---|---|---|');
  for (const cat of CATS) {
    const t = pick(test, () => true, cat);
    const cells = reliability(t.s, t.y, 5).map((b) =>
      b.n ? `${b.meanP.toFixed(2)}→${b.rate.toFixed(2)} (${b.n})` : '–',
    );
    console.log(`| ${cat} | ${ece(t.s, t.y).toFixed(3)} | ${cells.join(' | ')} |`);
  }
  console.log('\nECE per language (all categories but spam pooled; team-authored test split):\n');
  console.log(`| ${langs.join(' | ')} |`);
  console.log(`|${langs.map(() => '---').join('|')}|`);
  console.log(
    `| ${langs
      .map((lang) => {
        const s: number[] = [];
        const y: number[] = [];
        for (const cat of CATS) {
          const t = pick(
            test.filter((r) => r.e.lang === lang),
            () => true,
            cat,
          );
          s.push(...t.s);
          y.push(...t.y);
        }
        return ece(s, y).toFixed(3);
      })
      .join(' | ')} |`,
  );
}

/**
 * Thresholds that would meet precision / recall targets, derived on the calibration splits (real and authored
 * data pooled) and checked on the test splits: how the built-in policies' thresholds relate to measured quality.
 */
export function thresholdTable(scored: Scored[]): void {
  console.log(
    '\n### Thresholds against precision and recall (derived on calibration splits, checked on test)\n',
  );
  console.log(
    '| category | lowest threshold with precision ≥ 0.8 (calib) | test P / R there | lowest with precision ≥ 0.9 | test P / R there | highest with recall ≥ 0.8 | test P / R there |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const grid = Array.from({ length: 19 }, (_, i) => Math.round((0.05 + i * 0.05) * 100) / 100);
  for (const cat of CATS) {
    const cal = pick(scored, (e) => e.split === 'calib', cat);
    const test = pick(scored, (e) => e.split === 'test', cat);
    const at = (thr: number) => {
      const r = prf(test.s, test.y, thr);
      return `${f3(r.precision)} / ${f3(r.recall)}`;
    };
    const p8 = grid.find((t) => prf(cal.s, cal.y, t).precision >= 0.8);
    const p9 = grid.find((t) => prf(cal.s, cal.y, t).precision >= 0.9);
    const r8 = [...grid].reverse().find((t) => prf(cal.s, cal.y, t).recall >= 0.8);
    const cell = (t: number | undefined) => (t === undefined ? 'none | –' : `${t} | ${at(t)}`);
    console.log(`| ${cat} | ${cell(p8)} | ${cell(p9)} | ${cell(r8)} |`);
  }
}

export function suiteSection(model: TextModel): ReturnType<typeof scoreSuite> {
  const rows = scoreSuite(model);
  console.log('\n### Functional suite (suite/, team-written, never trained on)\n');
  console.log(
    'Harmful = labelled with any category but profanity; found = any of those categories ≥ 0.5. Hate cases = the hate phenomena and their contrasts, judged on the hate score alone. Category agreement = share of the seven categories where (score ≥ 0.5) equals the label.\n',
  );
  console.log(suiteTables(rows));
  console.log(
    `\nThe same suite sent as English (no \`language\`): ${suiteSummary(scoreSuite(model, undefined, 'en'))}`,
  );
  return rows;
}

/**
 * The spot checks of training/experiments/README.md, counted for one or more weights directories side by side:
 * plain compliments (`experiments/compliments-check.tsv`, all benign), texts that open like a compliment but are
 * harassment, solicitation or threats (`compliment-harassment-check.tsv`, all harmful), short mentions of
 * identity groups (`identity-terms-check.tsv`, all benign), hateful stereotypes without slurs and casual requests for
 * suicide methods (`stereotypes-check.tsv`, all harmful) and benign texts on the same topics
 * (`stereotype-contrasts-check.tsv`); no text of the last three is in any training file. A text counts as
 * flagged when any category reaches the built-in `default` policy's threshold (as the model card's table gives it),
 * scored in its declared language. For looking at known weaknesses; never for choosing thresholds.
 *   node --import tsx training/spot-checks.ts [weights dir …]   (none: the shipped weights)
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type ClassifyOptions, loadTextModel, TEXT_CATEGORIES, type TextModel } from '../src/index.ts';
import { cardThresholds } from './policy-thresholds.ts';
import { loadWeightsDir } from './weights-dir.ts';

const DEFAULT_THRESHOLDS = cardThresholds('default');

function rows(file: string): { lang: ClassifyOptions['language']; text: string }[] {
  return fs
    .readFileSync(new URL(`./experiments/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.includes('\t'))
    .map((line) => {
      const [lang, text] = line.split('\t') as [string, string];
      return { lang: lang as ClassifyOptions['language'], text };
    });
}

function flagged(model: TextModel, lang: ClassifyOptions['language'], text: string): boolean {
  const { scores } = model.classify(text, { language: lang, declared: true });
  return TEXT_CATEGORIES.some((c) => scores[c] >= DEFAULT_THRESHOLDS[c]);
}

/** How many texts of one spot-check file are flagged, in all and per language. */
export function countFlagged(
  model: TextModel,
  file: string,
): { n: number; flagged: number; byLang: Map<string, { n: number; flagged: number }> } {
  const all = { n: 0, flagged: 0 };
  const byLang = new Map<string, { n: number; flagged: number }>();
  for (const { lang, text } of rows(file)) {
    const s = byLang.get(lang!) ?? { n: 0, flagged: 0 };
    byLang.set(lang!, s);
    const hit = flagged(model, lang, text) ? 1 : 0;
    s.n++;
    all.n++;
    s.flagged += hit;
    all.flagged += hit;
  }
  return { ...all, byLang };
}

function count(model: TextModel, file: string): string {
  const { n, flagged: f, byLang } = countFlagged(model, file);
  const per = [...byLang].map(([l, s]) => `${l} ${s.flagged}/${s.n}`).join(', ');
  return `${f} / ${n} (${per})`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dirs = process.argv.slice(2);
  for (const dir of dirs.length > 0 ? dirs : [null]) {
    const model = dir ? loadWeightsDir(dir) : loadTextModel();
    console.log(`${dir ?? 'shipped weights'}`);
    console.log(`  compliments flagged:        ${count(model, 'compliments-check.tsv')}`);
    console.log(`  harassment checks flagged:  ${count(model, 'compliment-harassment-check.tsv')}`);
    console.log(`  identity mentions flagged:  ${count(model, 'identity-terms-check.tsv')}`);
    console.log(`  stereotypes and methods flagged (harmful): ${count(model, 'stereotypes-check.tsv')}`);
    console.log(
      `  their benign contrasts flagged:            ${count(model, 'stereotype-contrasts-check.tsv')}`,
    );
  }
}

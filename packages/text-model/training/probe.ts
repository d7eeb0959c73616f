/**
 * Scores ad-hoc texts with the shipped (or given) weights, one line each: the categories at or above 0.1.
 *   node --import tsx training/probe.ts [--weights dir] [--lang xx] [--undeclared] "text" ["text" ...]
 * (--undeclared: the language is the API's default, not the caller's, as for a request without `language`)
 * Without texts, reads one text per line from stdin. For looking at behaviour by hand; never for choosing data.
 */
import { type ClassifyOptions, loadTextModel, TEXT_CATEGORIES } from '../src/index.ts';
import { loadWeightsDir } from './weights-dir.ts';

const args = process.argv.slice(2);
let weights: string | undefined;
let lang: ClassifyOptions['language'];
let declared = true;
const texts: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--weights') weights = args[++i];
  else if (args[i] === '--lang') lang = args[++i] as ClassifyOptions['language'];
  else if (args[i] === '--undeclared') declared = false;
  else texts.push(args[i]!);
}
if (texts.length === 0) {
  const { readFileSync } = await import('node:fs');
  texts.push(
    ...readFileSync(0, 'utf8')
      .split('\n')
      .filter((t) => t.trim()),
  );
}
const model = weights ? loadWeightsDir(weights) : loadTextModel();
for (const text of texts) {
  const s = model.classify(text, { ...(lang && { language: lang }), declared }).scores;
  const top = TEXT_CATEGORIES.filter((c) => s[c] >= 0.1)
    .sort((a, b) => s[b] - s[a])
    .map((c) => `${c} ${s[c].toFixed(2)}`);
  console.log(`${top.join(', ') || '-'}\t${text}`);
}

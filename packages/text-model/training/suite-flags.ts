/**
 * Which benign cases of the functional suite one language's model flags, counted per phenomenon and per category,
 * for one or more weights directories side by side. Counts only: it never prints a suite text, so that looking at a
 * regression does not turn into writing training data from the suite's cases.
 * Benign and flagged as the suite's tables count them (training/suite-eval.ts): labelled with no category but
 * profanity, and any of the harm categories at 0.5 or more.
 *   node --import tsx training/suite-flags.ts [--stages] <lang> [weights dir …]   (no dir: the shipped weights)
 * --stages: flagged after the first stage alone, the first two, and all three, per phenomenon.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from '../src/constants.ts';
import { loadTextModel, type TextModel } from '../src/index.ts';
import { loadSuite } from './authored.ts';
import { HARM, scoreSuite } from './suite-eval.ts';
import { loadWeightsDir } from './weights-dir.ts';

export interface PhenomenonFlags {
  n: number;
  flagged: number;
  byCategory: Record<string, number>;
}

/** Per phenomenon of the language's benign suite cases: how many, how many flagged, and by which categories. */
export function benignFlags(model: TextModel, lang: SupportedLanguage): Map<string, PhenomenonFlags> {
  const out = new Map<string, PhenomenonFlags>();
  const rows = scoreSuite(
    model,
    loadSuite().filter((item) => item.lang === lang),
  );
  for (const row of rows) {
    if (row.harmful) continue;
    const e = out.get(row.item.phenomenon) ?? { n: 0, flagged: 0, byCategory: {} };
    out.set(row.item.phenomenon, e);
    e.n++;
    if (row.predHarmful) e.flagged++;
    for (const c of HARM) if (row.scores[c] >= 0.5) e.byCategory[c] = (e.byCategory[c] ?? 0) + 1;
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

/** The model of a weights directory (null: the shipped weights) cut after its first, second or third stage. */
function stageModel(dir: string | null, stages: 1 | 2 | 3): TextModel {
  const w = dir ? `${dir}/` : fileURLToPath(new URL('../weights/', import.meta.url));
  return loadTextModel({
    weightsPath: `${w}text-model.bin`,
    contextWeightsPath: stages >= 2 ? `${w}context-model.bin` : null,
    neuralWeightsPath: stages >= 3 ? `${w}neural-model.bin` : null,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const byStage = args.includes('--stages');
  const [lang, ...dirs] = args.filter((a) => a !== '--stages');
  if (!SUPPORTED_LANGUAGES.includes(lang as SupportedLanguage)) {
    console.error(`usage: suite-flags.ts [--stages] <${SUPPORTED_LANGUAGES.join('|')}> [weights dir …]`);
    process.exit(2);
  }
  for (const dir of dirs.length > 0 ? dirs : [null]) {
    console.log(dir ?? 'shipped weights');
    if (byStage) {
      // flagged after the first stage, the first two, and all three (the shipped model)
      const counts = ([1, 2, 3] as const).map((k) =>
        benignFlags(stageModel(dir, k), lang as SupportedLanguage),
      );
      for (const [phenomenon, e] of counts[2]!) {
        const per = counts.map((c, i) => `stage ${i + 1} ${c.get(phenomenon)!.flagged}`).join(', ');
        console.log(`  ${phenomenon}: flagged of ${e.n} after ${per}`);
      }
      continue;
    }
    const model = dir ? loadWeightsDir(dir) : loadTextModel();
    for (const [phenomenon, e] of benignFlags(model, lang as SupportedLanguage)) {
      const cats = Object.entries(e.byCategory)
        .map(([c, k]) => `${c} ${k}`)
        .join(', ');
      console.log(`  ${phenomenon}: ${e.flagged} / ${e.n} flagged${cats ? ` (${cats})` : ''}`);
    }
  }
}

/**
 * Snapshot of the text model's outputs, for speed work that must not change results:
 *   node --import tsx bench/text-model-snapshot.ts before.jsonl   (on the old code)
 *   node --import tsx bench/text-model-snapshot.ts after.jsonl    (on the new code)
 *   cmp before.jsonl after.jsonl
 * One JSON line (scores, highlights, language) per text: every dataset text in every split with its language,
 * evasion and look-alike strings in seven languages, and per language 32 KB slices and ten-text concatenations of
 * its texts (about 215,000 lines, ~20 s).
 */
import { createWriteStream } from 'node:fs';
import { loadTextModel, type SupportedLanguage } from '../packages/text-model/src/index.ts';
import { loadExamples } from '../packages/text-model/training/data.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node --import tsx bench/text-model-snapshot.ts <out.jsonl>');
  process.exit(2);
}
const model = loadTextModel();
const out = createWriteStream(file);
const write = (text: string, language: SupportedLanguage) =>
  out.write(`${JSON.stringify(model.classify(text, { language }))}\n`);

const examples = loadExamples();
for (const e of examples) write(e.text, e.lang);
const evasions = [
  'f u c k you',
  'f.u.c.k off',
  'fuuuuuck',
  'f*ck',
  'sh1t',
  'ｆｕｃｋ',
  'fu\u200bck',
  'Scunthorpe',
  'assessment',
  'cocktail',
  'a**hole',
  '@ss',
  'bıtch',
  'сука',
  'Call 09061701461 now to claim your £1000 prize! T&Cs apply 18+',
  'FREE entry txt WIN to 87121',
  'www.example.com http://x.y/z a@b.com $100 5000 USD',
];
for (const language of ['en', 'de', 'tr', 'ar', 'fr', 'es', 'ru'] as const)
  for (const s of evasions) write(s, language);
const byLanguage = new Map<SupportedLanguage, string[]>();
for (const e of examples) {
  const list = byLanguage.get(e.lang) ?? [];
  list.push(e.text);
  byLanguage.set(e.lang, list);
}
let lines = examples.length + 7 * evasions.length;
for (const [language, texts] of byLanguage) {
  const all = texts.join(' ');
  for (let i = 0; i < 40 && (i + 1) * 32768 <= all.length; i++, lines++)
    write(all.slice(i * 32768, (i + 1) * 32768), language);
  for (let i = 0; i < 200; i++, lines++) write(texts.slice(i * 10, i * 10 + 10).join('\n'), language);
}
out.end(() => console.log(`${lines} lines written to ${file}`));

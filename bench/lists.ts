/**
 * Match lists: the time to match one 280-character text against a compiled list of 100,000 entries (terms and
 * phrases; then with 50 regexes more), on one core, against baselines measured in the same run:
 *   - the text model's normalisation alone (its tokenizer with no lexicon) over the same text: the floor any match
 *     after normalisation pays;
 *   - `String.prototype.includes` of one term over the text: the cheapest possible test of one entry;
 *   - `includes` of every entry over the lower-cased text: what a straightforward implementation would do (no
 *     normalisation, no word boundaries), on 1,000 texts only.
 *   node --import tsx --conditions source bench/lists.ts [texts]
 * Target (issue 18): < 0.2 ms per match of a 280-character text against 100,000 entries.
 */
import { performance } from 'node:perf_hooks';
import { Tokenizer } from '@verdict/text-model';
import { CompiledList, type EntryRow } from '../packages/server/src/lists/compiled.ts';
import { normaliseEntry } from '../packages/server/src/lists/normalise.ts';

const TEXTS = Number(process.argv[2] ?? 20_000);
const ENTRIES = 100_000;

// a deterministic generator, so runs compare
let seed = 42;
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
// 40 syllables, 2–4 a word: about 2.6 million possible words
const SYLLABLES = (
  'ka lo mi ne ru sta ven dor bli qua tesh ump zor fi gle bra cro dri fla gru hin jol kel mur nix ' +
  'pol rim sel tov urk vay wex yal zun ab ek id ob ul'
).split(' ');
const word = () => Array.from({ length: 2 + Math.floor(rand() * 3) }, () => pick(SYLLABLES)).join('');
const COMMON = (
  'the of and to in is you that it he was for on are as with his they at be this have from or one had by word but ' +
  'not what all were we when your can said there use an each which she do how their if will up other about out many ' +
  'then them these so some her would make like him into time has look two more write go see number no way could ' +
  'people my than first water been call who oil its now find long down day did get come made may part'
).split(' ');

const values: (string | { regex: string })[] = [];
const seen = new Set<string>();
while (values.length < ENTRIES) {
  const phrase = rand() < 0.1;
  const value = phrase ? `${word()} ${word()}${rand() < 0.3 ? ` ${word()}` : ''}` : word();
  if (seen.has(value)) continue;
  seen.add(value);
  values.push(value);
}
let started = performance.now();
const rows: EntryRow[] = values.map((v, i) => ({ id: `lse_${i}`, ...normaliseEntry(v, 'entry') }));
const normaliseMs = performance.now() - started;
const heapBefore = process.memoryUsage().heapUsed;
started = performance.now();
const list = new CompiledList(rows);
const buildMs = performance.now() - started;
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
const regexRows: EntryRow[] = [
  ...rows,
  ...Array.from({ length: 50 }, (_, i) => ({
    id: `lse_re${i}`,
    ...normaliseEntry({ regex: `\\b${word()}\\s+(${word()}|${word()})\\d{0,3}\\b` }, 're'),
  })),
];
const withRegexes = new CompiledList(regexRows);

/** 280-character texts of common words, a few list entries written with evasions (leet, caps, spacing). */
function text(): string {
  const parts: string[] = [];
  let length = 0;
  while (length < 280) {
    let w = pick(COMMON);
    const r = rand();
    if (r < 0.03) w = (pick(values) as string).toUpperCase();
    else if (r < 0.05) w = (pick(values) as string).replace(/e/g, '3').replace(/o/g, '0');
    else if (r < 0.06) w = word();
    parts.push(w);
    length += w.length + 1;
  }
  return parts.join(' ').slice(0, 280);
}
const texts = Array.from({ length: 2000 }, text);

function time(label: string, n: number, fn: (i: number) => number): number {
  for (let i = 0; i < Math.min(n, 2000); i++) fn(i); // warm up
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) sink += fn(i);
  const perMs = (performance.now() - t0) / n;
  console.log(`${label.padEnd(58)} ${(perMs * 1000).toFixed(2).padStart(9)} µs/text   (sink ${sink})`);
  return perMs;
}

const plain = new Tokenizer(null, 10);
console.log(
  `${ENTRIES} entries (${rows.filter((r) => r.normalised.includes(' ')).length} phrases); ` +
    `${texts.length} distinct 280-character texts, ${TEXTS} matches per measurement`,
);
console.log(
  `normalising the entries: ${normaliseMs.toFixed(0)} ms; compiling the list: ${buildMs.toFixed(0)} ms, ` +
    `~${heapMb.toFixed(0)} MB of heap`,
);
const match = time(
  'match, 100,000 terms and phrases',
  TEXTS,
  (i) => list.match(texts[i % texts.length]!, 10).length,
);
const matchRe = time(
  'match, 100,000 terms and phrases + 50 regexes',
  TEXTS,
  (i) => withRegexes.match(texts[i % texts.length]!, 10).length,
);
const normalise = time('baseline: normalisation alone (tokenizer, no lexicon)', TEXTS, (i) =>
  plain.run(texts[i % texts.length]!, 'en', 1),
);
const one = values[123] as string;
const includes = time('baseline: String.prototype.includes of one term', TEXTS, (i) =>
  texts[i % texts.length]!.includes(one) ? 1 : 0,
);
const naive = time('baseline: includes of every entry (lower-cased text)', 1000, (i) => {
  const t = texts[i % texts.length]!.toLowerCase();
  let hits = 0;
  for (const v of values) if (t.includes(v as string)) hits++;
  return hits;
});
const found = texts.reduce((n, t) => n + list.match(t, 10).length, 0);
console.log(`\nentries found in the ${texts.length} texts: ${found}`);
console.log(`match / normalisation alone:      ${(match / normalise).toFixed(2)}×`);
console.log(`match / includes of one term:     ${(match / includes).toFixed(1)}×`);
console.log(`naive scan / match:               ${(naive / match).toFixed(0)}× slower`);
console.log(`with 50 regexes / without:        ${(matchRe / match).toFixed(2)}×`);
console.log(
  `target: < 200 µs per match → ${match * 1000 < 200 ? 'met' : 'NOT met'} (${(match * 1000).toFixed(1)} µs)`,
);

/**
 * One-word benign texts for the first stage: per language, the words that occur mostly in benign training texts.
 *
 * Short messages ("ok", "hi", "nice", "hey guys") are everywhere in real chat and rare in the training data, so the
 * first stage scored them from its biases and a word or two: with the v4 authored data "ok" read sexual 0.75 there.
 * The second stage has learnt such words since v2 (context-trainer.ts, benignWords); the first stage had only emoji.
 * A word qualifies when it is in at least `minDocs` benign texts of its language, is not a lexicon term, and is at
 * least `minRatio` times as frequent in benign texts as in harmful ones (so "kill" or "whore" never qualify).
 */
import type { SupportedLanguage } from '../src/constants.ts';
import { labelVector } from './authored.ts';
import type { Example } from './data.ts';

export interface CommonWordsOptions {
  perLanguage: number;
  minDocs: number;
  minRatio: number;
}

const WORD = /[\p{L}\p{M}]{2,}/gu;

export function commonBenignWords(
  train: Example[],
  lexiconTerms: ReadonlySet<string>,
  options: CommonWordsOptions,
): Map<SupportedLanguage, string[]> {
  const benign = new Map<SupportedLanguage, Map<string, number>>();
  const everyday = new Map<SupportedLanguage, string[]>();
  for (const e of train) {
    if (e.source !== 'authored' || e.group !== 'benign_everyday') continue;
    const words = e.text.toLowerCase().match(WORD) ?? [];
    if (words.length !== 1 || e.text.trim().split(/\s+/).length !== 1) continue;
    const list = everyday.get(e.lang) ?? [];
    everyday.set(e.lang, list);
    if (!list.includes(words[0]!)) list.push(words[0]!);
  }
  const harmful = new Map<SupportedLanguage, Map<string, number>>();
  for (const e of train) {
    const isHarmful = e.labels.some((v) => v === 1);
    const isBenign = !isHarmful && e.labels.some((v) => v === 0);
    if (!isHarmful && !isBenign) continue;
    const table = isHarmful ? harmful : benign;
    const counts = table.get(e.lang) ?? new Map<string, number>();
    table.set(e.lang, counts);
    for (const w of new Set(e.text.toLowerCase().match(WORD) ?? [])) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const out = new Map<SupportedLanguage, string[]>();
  for (const [lang, counts] of [...benign].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const bad = harmful.get(lang) ?? new Map<string, number>();
    const ratioWords = [...counts]
      .filter(
        ([w, n]) => n >= options.minDocs && !lexiconTerms.has(w) && n >= options.minRatio * (bad.get(w) ?? 0),
      )
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, options.perLanguage)
      .map(([w]) => w);
    // the team's own one-word everyday messages come first, whatever their ratio: sexual-solicitation texts open
    // with "hey" and "hi" often enough (v6 data) that the ratio rule dropped them and a lone "hi" read sexual 0.57
    const own = (everyday.get(lang) ?? []).filter((w) => !lexiconTerms.has(w));
    const words = [...new Set([...own, ...ratioWords])].slice(0, options.perLanguage);
    out.set(lang, words);
  }
  return out;
}

/** A generated one-word (or one-emoji) training text with every category 0 (spam unknown). */
export function oneWordBenign(text: string, lang: SupportedLanguage): Example {
  return { text, lang, source: 'generated_words', split: 'train', labels: labelVector([]) };
}

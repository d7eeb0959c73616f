/** Builds the runtime lexicon (normalised terms + flags + language masks) from the datasets and npm lists. */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ALL_LANGS, LEX, langBit, SUPPORTED_LANGUAGES, type SupportedLanguage } from '../src/constants.ts';
import type { LexiconData } from '../src/lexicon.ts';
import { Tokenizer } from '../src/tokenize.ts';
import { readCsvGz } from './csv.ts';
import {
  INSULTS,
  NEVER_FLAG,
  NOT_PROFANE_IN,
  PROFANITY,
  SELF_HARM,
  SEXUAL_EXPLICIT,
  SPAM,
  VIOLENCE,
} from './curated.ts';

const require = createRequire(import.meta.url);

/** Common words first: masked tokens ("f**k", "sh*t") resolve to the earliest matching entry. */
const PRIORITY = [
  'fuck',
  'shit',
  'bitch',
  'cunt',
  'dick',
  'cock',
  'ass',
  'asshole',
  'fucking',
  'fucker',
  'fucked',
  'motherfucker',
  'pussy',
  'bastard',
  'slut',
  'whore',
  'damn',
  'crap',
  'piss',
  'nigger',
  'nigga',
  'faggot',
  'fag',
  'retard',
  'twat',
  'wanker',
  'bollocks',
  'bullshit',
  'dumbass',
  'jackass',
  'bitches',
  'shitty',
  'fuckin',
  'dickhead',
  'prick',
];

export interface LexiconSourceStats {
  [source: string]: number;
}

const normTok = new Tokenizer(null);

/** Normalises a term the way the runtime normalises text (tokens joined by single spaces). */
export function normaliseTerm(term: string, lang: SupportedLanguage): string {
  const n = normTok.run(term, lang, ALL_LANGS);
  const parts: string[] = [];
  for (let t = 0; t < n; t++) parts.push(normTok.tokenText(t));
  return parts.join(' ');
}

export function buildLexicon(datasetsDir: string): { data: LexiconData; stats: LexiconSourceStats } {
  const entries = new Map<string, { flags: number; langs: number; severity: number }>();
  const stats: LexiconSourceStats = {};
  const never = new Set(NEVER_FLAG.map((w) => normaliseTerm(w, 'en')));
  const exclusions = new Map<string, number>(); // term → langs mask where it is NOT profane
  for (const [lang, words] of Object.entries(NOT_PROFANE_IN) as [SupportedLanguage, string[]][]) {
    for (const w of words) {
      const t = normaliseTerm(w, lang);
      exclusions.set(t, (exclusions.get(t) ?? 0) | langBit(lang));
    }
  }
  const add = (source: string, raw: string, lang: SupportedLanguage | 'all', flags: number, severity = 0) => {
    const term = normaliseTerm(raw, lang === 'all' ? 'en' : lang);
    if (term === '' || never.has(term)) return;
    // single letters and pure numbers are never lexicon entries
    if (!term.includes(' ') && ([...term].length < 2 || /^[0-9]+$/.test(term))) return;
    let langs = lang === 'all' ? ALL_LANGS : langBit(lang);
    if (lang === 'all') langs &= ~(exclusions.get(term) ?? 0);
    const e = entries.get(term);
    if (e) {
      e.flags |= flags;
      e.langs |= langs;
      e.severity = Math.max(e.severity, severity);
    } else entries.set(term, { flags, langs, severity });
    stats[source] = (stats[source] ?? 0) + 1;
  };

  // 1. Surge AI profanity lexicon (MIT): severity and category.
  for (const r of readCsvGz(join(datasetsDir, 'surge_profanity_lexicon/profanity_en.csv.gz'))) {
    const sev = r.severity_description;
    let f = sev === 'Severe' ? LEX.PROF_SEVERE : sev === 'Strong' ? LEX.PROF_STRONG : LEX.PROF_MILD;
    const cats = [r.category_1, r.category_2, r.category_3];
    if (cats.includes('racial / ethnic slurs')) f |= LEX.SLUR;
    if (cats.includes('sexual orientation / gender') && sev !== 'Mild') f |= LEX.SLUR;
    if (cats.includes('mental disability') || cats.includes('physical disability'))
      f |= LEX.SLUR | LEX.INSULT;
    if (cats.includes('sexual anatomy / sexual acts')) f |= LEX.SEXUAL;
    if (cats.includes('other / general insult')) f |= LEX.INSULT;
    add('surge_profanity_lexicon', r.text ?? '', 'all', f, Number(r.severity_rating));
  }
  // 2. @2toad/profanity English list (MIT). Its other languages are machine translations with obvious false
  //    positives (ko "장바구니" = shopping cart, ja "ログイン" = login), so they are not used.
  const toad = (
    require('@2toad/profanity/dist/data/profane-words.js') as { profaneWords: Map<string, string[]> }
  ).profaneWords;
  for (const w of toad.get('en') ?? []) add('@2toad/profanity:en', w, 'all', LEX.PROF_STRONG);
  // 3. naughty-words = LDNOOBW (CC-BY-4.0): English mostly sexual; other languages are per-language profanity.
  for (const lang of SUPPORTED_LANGUAGES) {
    let words: string[] = [];
    try {
      words = require(`naughty-words/${lang}.json`) as string[];
    } catch {
      continue; // no list for this language (Indonesian)
    }
    if (lang === 'en') for (const w of words) add('naughty-words:en', w, 'all', LEX.SEXUAL | LEX.PROF_MILD);
    else for (const w of words) add(`naughty-words:${lang}`, w, lang, LEX.FOREIGN);
  }
  // 4. Curated lists (this repository).
  const curated: [Partial<Record<SupportedLanguage, string[]>>, number, string][] = [
    [SELF_HARM, LEX.SELF_HARM, 'curated:self_harm'],
    [VIOLENCE, LEX.VIOLENCE, 'curated:violence'],
    [SEXUAL_EXPLICIT, LEX.SEXUAL_EXPLICIT, 'curated:sexual'],
    [INSULTS, LEX.INSULT, 'curated:insult'],
    [PROFANITY, LEX.FOREIGN | LEX.PROF_STRONG, 'curated:profanity'],
    [SPAM, LEX.SPAM, 'curated:spam'],
  ];
  for (const [lists, flag, source] of curated) {
    for (const [lang, words] of Object.entries(lists) as [SupportedLanguage, string[]][]) {
      // non-English curated insults are language-specific entries like the LDNOOBW lists
      const f = flag === LEX.INSULT && lang !== 'en' ? flag | LEX.FOREIGN : flag;
      for (const w of words) add(source, w, lang === 'en' ? 'all' : lang, f);
    }
  }

  const prio = new Map(PRIORITY.map((w, i) => [w, i]));
  const terms = [...entries.keys()].sort((a, b) => {
    const pa = prio.get(a) ?? 1e9;
    const pb = prio.get(b) ?? 1e9;
    if (pa !== pb) return pa - pb;
    const sa = entries.get(a)!.severity;
    const sb = entries.get(b)!.severity;
    if (sa !== sb) return sb - sa;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return {
    data: {
      terms,
      flags: terms.map((t) => entries.get(t)!.flags),
      langs: terms.map((t) => entries.get(t)!.langs),
    },
    stats,
  };
}

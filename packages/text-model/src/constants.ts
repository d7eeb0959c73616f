export const TEXT_CATEGORIES = [
  'toxicity',
  'harassment',
  'hate',
  'violence',
  'sexual',
  'self_harm',
  'profanity',
  'spam',
] as const;
export type TextCategory = (typeof TEXT_CATEGORIES)[number];

export const SUPPORTED_LANGUAGES = [
  'en',
  'es',
  'fr',
  'de',
  'pt',
  'it',
  'ru',
  'tr',
  'ar',
  'hi',
  'id',
  'ja',
  'ko',
  'pl',
  'nl',
  'sv',
  'cs',
] as const;
export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

export const N_HEADS = TEXT_CATEGORIES.length;

/** Bit of a language in lexicon language masks. */
export function langBit(lang: SupportedLanguage): number {
  return 1 << SUPPORTED_LANGUAGES.indexOf(lang);
}
export const ALL_LANGS = (1 << SUPPORTED_LANGUAGES.length) - 1;

/** Lexicon entry flags. */
export const LEX = {
  PROF_MILD: 1,
  PROF_STRONG: 2,
  PROF_SEVERE: 4,
  SLUR: 8,
  SEXUAL: 16,
  SEXUAL_EXPLICIT: 32,
  SELF_HARM: 64,
  VIOLENCE: 128,
  INSULT: 256,
  FOREIGN: 512,
  SPAM: 1024,
  /** listed only so that evasion decoding (leet, masks, spacing) can recognise it; no feature */
  DECODE_ONLY: 2048,
} as const;

/** Dense (non-hashed) features, one value per window. Order is part of the weights format. */
export const DENSE_FEATURES = [
  'lex_prof_mild',
  'lex_prof_strong',
  'lex_prof_severe',
  'lex_slur',
  'lex_sexual',
  'lex_sexual_explicit',
  'lex_self_harm',
  'lex_violence',
  'lex_insult',
  'lex_foreign_prof',
  'lex_spam',
  'rule_url',
  'rule_phone',
  'rule_money',
  'rule_email',
  'rule_shout',
] as const;
export const N_DENSE = DENSE_FEATURES.length;

/** Lexicon flag → dense feature index (same order as the flags above, 11 flags). */
export const FLAG_TO_DENSE: ReadonlyArray<[number, number]> = [
  [LEX.PROF_MILD, 0],
  [LEX.PROF_STRONG, 1],
  [LEX.PROF_SEVERE, 2],
  [LEX.SLUR, 3],
  [LEX.SEXUAL, 4],
  [LEX.SEXUAL_EXPLICIT, 5],
  [LEX.SELF_HARM, 6],
  [LEX.VIOLENCE, 7],
  [LEX.INSULT, 8],
  [LEX.FOREIGN, 9],
  [LEX.SPAM, 10],
];
export const D_URL = 11;
export const D_PHONE = 12;
export const D_MONEY = 13;
export const D_EMAIL = 14;
export const D_SHOUT = 15;

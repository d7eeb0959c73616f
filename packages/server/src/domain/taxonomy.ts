/** Content types the service evaluates. */
export const CONTENT_TYPES = ['text', 'image', 'video'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** Categories of the provider taxonomy (decisions §2): text categories, plus `suggestive` for images. */
export const TEXT_CATEGORY_NAMES = [
  'toxicity',
  'harassment',
  'hate',
  'violence',
  'sexual',
  'self_harm',
  'profanity',
  'spam',
] as const;
export const POLICY_CATEGORY_NAMES = [...TEXT_CATEGORY_NAMES, 'suggestive'] as const;
export type CategoryName = (typeof POLICY_CATEGORY_NAMES)[number];

export const ACTIONS = ['allow', 'warn', 'flag', 'block'] as const;
export type Action = (typeof ACTIONS)[number];

/** Severity order used to pick the most severe action: block > flag > warn > allow. */
export const ACTION_SEVERITY: Record<Action, number> = { allow: 0, warn: 1, flag: 2, block: 3 };

export function mostSevere(actions: Iterable<Action>): Action {
  let result: Action = 'allow';
  for (const action of actions) if (ACTION_SEVERITY[action] > ACTION_SEVERITY[result]) result = action;
  return result;
}

export const LANGUAGES = [
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
export type Language = (typeof LANGUAGES)[number];

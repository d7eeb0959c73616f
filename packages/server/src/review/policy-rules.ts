import { createHash } from 'node:crypto';
import { AppError } from '../domain/errors.ts';
import { ACTIONS, type Action, type CategoryName } from '../domain/taxonomy.ts';

/**
 * What a policy sends to human review (issue 18): decisions in which a category marked `review: true` triggered,
 * decisions whose action is listed in `reviewActions`, and a deterministic `reviewSample` share of allowed ones.
 */
export interface ReviewRules {
  categories: CategoryName[];
  actions: Action[];
  /** 0..1: the share of `allow` decisions sampled for quality control */
  sample: number;
}

export type QueueReason = 'category' | 'action' | 'sample' | 'appeal';

/** The top-level keys of a policy document that this module reads. */
export const REVIEW_TOP_LEVEL_KEYS = ['reviewActions', 'reviewSample'] as const;
/** The per-category key of a policy document that this module reads. */
export const REVIEW_CATEGORY_KEY = 'review';

type Position = (path: (string | number)[]) => { line?: number; column?: number };

/** Validates the review keys of a parsed policy document; null when it has none (nothing goes to review). */
export function parseReviewRules(
  root: Record<string, unknown>,
  categories: Record<string, unknown>,
  at: Position,
): ReviewRules | null {
  const fail = (message: string, path: (string | number)[]): never => {
    throw new AppError('INVALID_POLICY', message, { field: path.join('.'), ...at(path) });
  };
  const reviewed: CategoryName[] = [];
  for (const [name, raw] of Object.entries(categories)) {
    const value = (raw as Record<string, unknown>)[REVIEW_CATEGORY_KEY];
    if (value === undefined) continue;
    if (typeof value !== 'boolean')
      fail(`\`review\` of "${name}" must be true or false`, ['categories', name, 'review']);
    if (value) reviewed.push(name as CategoryName);
  }
  let actions: Action[] = [];
  if (root.reviewActions !== undefined) {
    const list = root.reviewActions;
    if (!Array.isArray(list) || list.length > ACTIONS.length)
      fail('`reviewActions` must be a list of actions (allow, warn, flag, block)', ['reviewActions']);
    (list as unknown[]).forEach((a, i) => {
      if (typeof a !== 'string' || !(ACTIONS as readonly string[]).includes(a))
        fail('`reviewActions` entries must be allow, warn, flag or block', ['reviewActions', i]);
    });
    actions = [...new Set(list as Action[])];
  }
  let sample = 0;
  if (root.reviewSample !== undefined) {
    const s = root.reviewSample;
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0 || s > 1)
      fail('`reviewSample` must be a number from 0 to 1', ['reviewSample']);
    sample = s as number;
  }
  if (reviewed.length === 0 && actions.length === 0 && sample === 0) return null;
  return { categories: reviewed, actions, sample };
}

/**
 * Whether a decision is in the sampled share: the first 48 bits of SHA-256(decision ID) as a fraction of 2^48,
 * below `share`. Deterministic, so a replay of the same stream (or another instance) samples the same decisions.
 */
export function isSampled(decisionId: string, share: number): boolean {
  if (share <= 0) return false;
  if (share >= 1) return true;
  const digest = createHash('sha256').update(decisionId).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48 < share;
}

/** Why a just-stored decision goes to review under these rules, or null when it does not. */
export function queueReason(
  decision: { decisionId: string; action: Action; categories: { category: string; triggered: boolean }[] },
  rules: ReviewRules | null,
): QueueReason | null {
  if (!rules) return null;
  const flaggedFor = new Set<string>(rules.categories);
  if (decision.categories.some((c) => c.triggered && flaggedFor.has(c.category))) return 'category';
  if (rules.actions.includes(decision.action)) return 'action';
  if (decision.action === 'allow' && isSampled(decision.decisionId, rules.sample)) return 'sample';
  return null;
}

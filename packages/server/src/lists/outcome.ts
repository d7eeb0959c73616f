import { applyPolicy, type PolicyOutcome, type Scores } from '../domain/engine.ts';
import type { Policy } from '../domain/policies/policy.ts';
import { ACTION_SEVERITY, type Action, type CategoryName, mostSevere } from '../domain/taxonomy.ts';
import type { ReplayData } from '../storage/repositories/decisions.ts';
import type { ListMatch } from './types.ts';

/**
 * Applies the policy with its list matches (none: exactly applyPolicy).
 *
 * - An allow-list match caps categories: a score cap lowers the category's score before thresholds apply (so it may
 *   no longer trigger); an action cap lowers a triggered category's action (it still triggers, so `flagged` stays
 *   true). Several allow matches: the lowest cap of each category wins.
 * - A block-list match acts like a triggered rule: the decision's action is the most severe of its action and the
 *   categories'; `flagged` unless its action is allow. Allow caps never lower a block-list match.
 */
export function applyLists(
  policy: Pick<Policy, 'categories'>,
  input: Scores,
  matches: readonly ListMatch[],
): PolicyOutcome {
  if (matches.length === 0) return applyPolicy(policy, input);
  const scoreCaps = new Map<CategoryName, number>();
  const actionCaps = new Map<CategoryName, Action>();
  for (const match of matches) {
    for (const [category, cap] of Object.entries(match.caps ?? {}) as [CategoryName, Action | number][]) {
      if (typeof cap === 'number') scoreCaps.set(category, Math.min(cap, scoreCaps.get(category) ?? 1));
      else {
        const before = actionCaps.get(category);
        if (!before || ACTION_SEVERITY[cap] < ACTION_SEVERITY[before]) actionCaps.set(category, cap);
      }
    }
  }
  let scores = input.scores;
  if (scoreCaps.size > 0) {
    scores = { ...scores };
    for (const [category, cap] of scoreCaps) {
      const score = scores[category];
      if (score !== undefined) scores[category] = Math.min(score, cap);
    }
  }
  const outcome = applyPolicy(policy, { ...input, scores });
  const categories = outcome.categories.map((c) => {
    const cap = actionCaps.get(c.category);
    return cap && ACTION_SEVERITY[c.action] > ACTION_SEVERITY[cap] ? { ...c, action: cap } : c;
  });
  const blocks = matches.filter((m) => m.kind === 'block' && m.action).map((m) => m.action as Action);
  const action = mostSevere([...categories.filter((c) => c.triggered).map((c) => c.action), ...blocks]);
  return {
    safe: action === 'allow',
    flagged: outcome.flagged || blocks.some((a) => a !== 'allow'),
    action,
    categories,
  };
}

/** The decision's replay data with its list matches (kept there, shown as `listMatches`). */
export function withListMatches(data: ReplayData | null, matches: readonly ListMatch[]): ReplayData | null {
  if (matches.length === 0) return data;
  return { ...data, listMatches: [...matches] };
}

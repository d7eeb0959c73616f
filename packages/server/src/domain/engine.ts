import { type Policy, policyCategoryEntries } from './policies/policy.ts';
import { type Action, type CategoryName, mostSevere } from './taxonomy.ts';

export interface Highlight {
  start: number;
  end: number;
  text: string;
}

export interface CategoryResult {
  category: CategoryName;
  score: number;
  threshold: number;
  triggered: boolean;
  evaluated: boolean;
  action: Action;
  highlights?: Highlight[];
}

export interface PolicyOutcome {
  safe: boolean;
  flagged: boolean;
  action: Action;
  categories: CategoryResult[];
}

export interface Scores {
  /** Raw provider scores in [0, 1] keyed by category. */
  scores: Partial<Record<CategoryName, number>>;
  /** Categories the provider judged; any other category is `evaluated: false` with score 0 (decisions §1). */
  evaluated: ReadonlySet<CategoryName> | readonly CategoryName[];
  highlights?: Partial<Record<CategoryName, Highlight[]>>;
}

/**
 * The policy engine of decisions §1: one entry per policy category in the policy's order; triggered when
 * score >= threshold; action = most severe triggered action; safe = action is allow.
 */
export function applyPolicy(policy: Pick<Policy, 'categories'>, input: Scores): PolicyOutcome {
  const evaluated = input.evaluated instanceof Set ? input.evaluated : new Set(input.evaluated);
  const categories: CategoryResult[] = [];
  for (const [category, rule] of policyCategoryEntries(policy)) {
    const judged = evaluated.has(category);
    const score = judged ? clamp01(input.scores[category] ?? 0) : 0;
    const triggered = judged && score >= rule.threshold;
    const entry: CategoryResult = {
      category,
      score,
      threshold: rule.threshold,
      triggered,
      evaluated: judged,
      action: rule.action,
    };
    const highlights = input.highlights?.[category];
    if (judged && highlights) entry.highlights = highlights;
    categories.push(entry);
  }
  const flagged = categories.some((c) => c.triggered);
  const action = mostSevere(categories.filter((c) => c.triggered).map((c) => c.action));
  return { safe: action === 'allow', flagged, action, categories };
}

function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(1, Math.max(0, value));
}

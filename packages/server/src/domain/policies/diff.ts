import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import type * as Diff from 'diff';
import type { Action, CategoryName } from '../taxonomy.ts';
import { type Policy, type PolicyCategory, policyCategoryEntries } from './policy.ts';

export interface CategoryChange {
  category: CategoryName;
  threshold?: { from: number; to: number };
  action?: { from: Action; to: Action };
}

// diff (19 modules) is loaded by the first diff of two versions, not at every start
const requireCjs = createRequire(import.meta.url);

/** What changed between two versions of a policy: categories by rule, other fields by value, and the YAML text. */
export interface PolicyDiff {
  policyId: string;
  from: number;
  to: number;
  categories: {
    added: ({ category: CategoryName } & PolicyCategory)[];
    removed: ({ category: CategoryName } & PolicyCategory)[];
    changed: CategoryChange[];
  };
  /** Top-level fields other than categories (name, description, banks, routing) whose value changed. */
  fields: { field: string; from: unknown; to: unknown }[];
  /** A unified diff of the two YAML documents (empty when the text is the same). */
  unified: string;
}

const OTHER_FIELDS = ['name', 'description', 'banks', 'routing'] as const;

export function diffPolicies(a: Policy, b: Policy): PolicyDiff {
  const before = new Map(policyCategoryEntries(a));
  const after = new Map(policyCategoryEntries(b));
  const added = [...after].filter(([c]) => !before.has(c)).map(([category, rule]) => ({ category, ...rule }));
  const removed = [...before]
    .filter(([c]) => !after.has(c))
    .map(([category, rule]) => ({ category, ...rule }));
  const changed: CategoryChange[] = [];
  for (const [category, rule] of after) {
    const old = before.get(category);
    if (!old) continue;
    const change: CategoryChange = { category };
    if (old.threshold !== rule.threshold) change.threshold = { from: old.threshold, to: rule.threshold };
    if (old.action !== rule.action) change.action = { from: old.action, to: rule.action };
    if (change.threshold || change.action) changed.push(change);
  }
  const fields = OTHER_FIELDS.flatMap((field) => {
    const from = a[field] ?? null;
    const to = b[field] ?? null;
    return isDeepStrictEqual(from, to) ? [] : [{ field, from, to }];
  });
  const unified =
    a.yaml === b.yaml
      ? ''
      : (requireCjs('diff') as typeof Diff).createTwoFilesPatch(
          `${a.policyId}@v${a.version}`,
          `${b.policyId}@v${b.version}`,
          withNewline(a.yaml),
          withNewline(b.yaml),
          undefined,
          undefined,
          { context: 3 },
        );
  return {
    policyId: b.policyId,
    from: a.version,
    to: b.version,
    categories: { added, removed, changed },
    fields,
    unified,
  };
}

const withNewline = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

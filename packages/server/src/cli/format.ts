import type { CategoryResult } from '@verdict/sdk';

export const ACTIONS = ['allow', 'warn', 'flag', 'block'] as const;
export type ActionName = (typeof ACTIONS)[number];

/** `block` > `flag` > `warn` > `allow`. */
export const severity = (action: string): number => ACTIONS.indexOf(action as ActionName);

export function verdictLine(r: {
  action: string;
  safe: boolean;
  flagged: boolean;
  decisionId: string;
  policyId?: string;
  policyVersion?: number;
}): string {
  const state = r.safe ? 'safe' : r.flagged ? 'flagged' : 'not safe';
  const policy = r.policyId ? `  policy ${r.policyId}${r.policyVersion ? ` v${r.policyVersion}` : ''}` : '';
  return `${r.action.toUpperCase()} (${state})  ${r.decisionId}${policy}`;
}

/** One line per category: score against threshold, and whether it triggered or was not judged. */
export function categoryLines(categories: readonly CategoryResult[]): string[] {
  return categories.map((c) => {
    const mark = c.triggered ? 'triggered' : c.evaluated === false ? 'not evaluated' : '';
    const cmp = c.score >= c.threshold ? '≥' : '<';
    return `  ${c.category.padEnd(12)} ${c.score.toFixed(2)} ${cmp} ${c.threshold.toFixed(2)}  ${mark}`.trimEnd();
  });
}

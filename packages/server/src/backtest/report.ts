import { ACTIONS, type Action, type CategoryName } from '../domain/taxonomy.ts';
import type { NotReplayableReason } from './stored-outcome.ts';

/** One decision as a report counts it: its action and triggered categories then, and under the candidate. */
export interface Comparison {
  decisionId: string;
  oldAction: Action;
  oldTriggered: CategoryName[];
  /** null when the decision could not be decided again */
  newAction: Action | null;
  newTriggered: CategoryName[] | null;
  notReplayable?: NotReplayableReason | null;
}

export interface CategoryTally {
  before: number;
  after: number;
  newlyTriggered: number;
  noLongerTriggered: number;
  examples: string[];
}

/** The running totals of a report: plain JSON, so a backtest job can keep it between pages and resume. */
export interface ReportState {
  total: number;
  replayed: number;
  changed: number;
  matrix: Record<string, Record<string, number>>;
  examples: Record<string, Record<string, string[]>>;
  notReplayable: Record<string, number>;
  notReplayableExamples: Record<string, string[]>;
  categories: Record<string, CategoryTally>;
}

export const DEFAULT_EXAMPLES = 5;
export const MAX_EXAMPLES = 50;

export function emptyReport(): ReportState {
  return {
    total: 0,
    replayed: 0,
    changed: 0,
    matrix: {},
    examples: {},
    notReplayable: {},
    notReplayableExamples: {},
    categories: {},
  };
}

/** The value under `key`, created by `make` when absent. */
function entry<T>(map: Record<string, T>, key: string, make: () => T): T {
  let value = map[key];
  if (value === undefined) {
    value = make();
    map[key] = value;
  }
  return value;
}

const push = (list: string[], id: string, max: number) => {
  if (list.length < max) list.push(id);
};

/** Adds one decision to the totals (in place). */
export function tally(state: ReportState, c: Comparison, maxExamples: number): void {
  state.total++;
  if (c.newAction === null || c.newTriggered === null) {
    const reason = c.notReplayable ?? 'missing_scores';
    state.notReplayable[reason] = (state.notReplayable[reason] ?? 0) + 1;
    push(
      entry(state.notReplayableExamples, reason, () => []),
      c.decisionId,
      maxExamples,
    );
    return;
  }
  state.replayed++;
  const row = entry<Record<string, number>>(state.matrix, c.oldAction, () => ({}));
  row[c.newAction] = (row[c.newAction] ?? 0) + 1;
  const cells = entry<Record<string, string[]>>(state.examples, c.oldAction, () => ({}));
  push(
    entry(cells, c.newAction, () => []),
    c.decisionId,
    maxExamples,
  );
  if (c.newAction !== c.oldAction) state.changed++;
  const before = new Set(c.oldTriggered);
  const after = new Set(c.newTriggered);
  for (const category of new Set([...before, ...after])) {
    const t = entry(state.categories, category, () => ({
      before: 0,
      after: 0,
      newlyTriggered: 0,
      noLongerTriggered: 0,
      examples: [],
    }));
    const was = before.has(category);
    const is = after.has(category);
    if (was) t.before++;
    if (is) t.after++;
    if (was !== is) {
      if (is) t.newlyTriggered++;
      else t.noLongerTriggered++;
      push(t.examples, c.decisionId, maxExamples);
    }
  }
}

/** The report as the API shows it: the full old→new matrix (zeros included), example IDs per non-empty cell. */
export function reportView(state: ReportState) {
  const matrix = Object.fromEntries(
    ACTIONS.map((from) => [
      from,
      Object.fromEntries(ACTIONS.map((to) => [to, state.matrix[from]?.[to] ?? 0])),
    ]),
  ) as Record<Action, Record<Action, number>>;
  const notReplayableTotal = Object.values(state.notReplayable).reduce((a, b) => a + b, 0);
  return {
    total: state.total,
    replayed: state.replayed,
    changed: state.changed,
    unchanged: state.replayed - state.changed,
    matrix,
    examples: state.examples,
    notReplayable: {
      total: notReplayableTotal,
      reasons: state.notReplayable as Partial<Record<NotReplayableReason, number>>,
      examples: state.notReplayableExamples,
    },
    categories: state.categories,
  };
}

export type ReportView = ReturnType<typeof reportView>;

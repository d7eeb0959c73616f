import type { Db } from '../storage/database.ts';
import { fromJson } from '../storage/json.ts';

/** One reviewed decision: the latest review's verdict beside the automated categories it was made with. */
export interface ReviewedDecision {
  decisionId: string;
  /** The action after the review (confirm: the action that stood; overturn: the new one). */
  reviewedAction: string;
  /** The categories the reviewer said apply (possibly none named). */
  reviewerCategories: string[];
  categories: Array<{
    category: string;
    score: number;
    threshold: number;
    triggered: boolean;
    evaluated: boolean;
  }>;
}

/** At most this many reviews are read for one report; the answer says when the window held more. */
export const MAX_REVIEWS = 50_000;

export class QualityRepository {
  constructor(private readonly db: Db) {}

  /**
   * The reviews of the account's decisions under `policyId` made in [from, to), the latest per decision, each with
   * the decision's stored categories; in review order, at most MAX_REVIEWS reviews read.
   */
  async reviewed(
    accountId: string,
    policyId: string,
    window: { from?: string; to?: string },
  ): Promise<{ decisions: ReviewedDecision[]; truncated: boolean }> {
    let q = this.db
      .selectFrom('reviews as r')
      .innerJoin('decisions as d', 'd.id', 'r.decision_id')
      .select([
        'r.decision_id',
        'r.action',
        'r.categories as reviewer',
        'd.categories',
        'r.created_at',
        'r.id',
      ])
      .where('r.account_id', '=', accountId)
      .where('d.account_id', '=', accountId)
      .where('d.policy_id', '=', policyId);
    if (window.from) q = q.where('r.created_at', '>=', window.from);
    if (window.to) q = q.where('r.created_at', '<', window.to);
    const rows = await q
      .orderBy('r.created_at')
      .orderBy('r.id')
      .limit(MAX_REVIEWS + 1)
      .execute();
    const truncated = rows.length > MAX_REVIEWS;
    const latest = new Map<string, ReviewedDecision>();
    for (const row of rows.slice(0, MAX_REVIEWS)) {
      latest.set(row.decision_id, {
        decisionId: row.decision_id,
        reviewedAction: row.action,
        reviewerCategories: fromJson<string[]>(row.reviewer),
        categories: fromJson(row.categories),
      });
    }
    return { decisions: [...latest.values()], truncated };
  }
}

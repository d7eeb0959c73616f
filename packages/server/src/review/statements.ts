import { parseTime, queryParameter, rejectUnknownParameters } from '../domain/decision-filters.ts';
import { AppError } from '../domain/errors.ts';
import { type Principal, requireAnyScope } from '../domain/principal.ts';
import type { Action } from '../domain/taxonomy.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { AppealsTable, ReviewsTable } from '../storage/schema.ts';
import type { ReviewDeps } from './service.ts';
import { appealView, reviewView } from './views.ts';

const EXPORT_PAGE = 200;

const RESTRICTION: Record<Action, string> = {
  allow: 'No restriction: the content remains available',
  warn: 'The content remains available with a warning',
  flag: 'The content was flagged: its visibility may be restricted',
  block: 'The content was removed (blocked)',
};

/**
 * The facts a statement of reasons under Article 17 of the EU Digital Services Act needs: what was restricted,
 * on which ground (the policy, its version and the categories), whether automated means detected and decided it,
 * the human review if any, and the redress available.
 */
export function statementOf(
  d: DecisionRecord,
  review: ReviewsTable | undefined,
  appeal: AppealsTable | undefined,
) {
  const action = (review?.action ?? d.action) as Action;
  const triggered = d.categories
    .filter((c) => c.triggered)
    .map((c) => ({ category: c.category, score: c.score, threshold: c.threshold, action: c.action }));
  const openAppeal = appeal?.status === 'open';
  return {
    decisionId: d.decisionId,
    contentType: d.contentType,
    decidedAt: d.timestamp,
    restriction: {
      action,
      restricted: action !== 'allow',
      description: RESTRICTION[action],
      automatedAction: d.action,
      overturned: review !== undefined && review.action !== d.action,
    },
    ground: {
      type: 'incompatible_with_terms' as const,
      explanation:
        triggered.length > 0
          ? `The content was judged against the policy "${d.policyId}" (version ${d.policyVersion}) and met ` +
            `the threshold of: ${triggered.map((c) => c.category).join(', ')}`
          : `The content was judged against the policy "${d.policyId}" (version ${d.policyVersion}) and no category met its threshold`,
      policyId: d.policyId,
      policyVersion: d.policyVersion,
      categories: triggered,
      reviewerCategories: review ? reviewView(review).categories : [],
      ...(d.bankMatch && { bankMatch: { bank: d.bankMatch.bank, label: d.bankMatch.label ?? null } }),
    },
    automation: {
      automatedDetection: true,
      detectedBy: d.bankMatch ? 'hash_match' : d.provider,
      automatedDecision: review === undefined,
      humanReview: review
        ? {
            outcome: review.outcome,
            action: review.action,
            previousAction: review.previous_action,
            reviewedAt: review.created_at,
            appealId: review.appeal_id,
          }
        : null,
    },
    redress: {
      internalComplaint: {
        available: !openAppeal,
        how: `The platform files it for its user: POST /v1/decisions/${d.decisionId}/appeals with the user's statement`,
        appeal: appeal ? appealView(appeal) : null,
      },
      outOfCourtDisputeSettlement: true,
      judicialRedress: true,
    },
  };
}
export type Statement = ReturnType<typeof statementOf>;

/** The statement as readable text, for the affected user or a case file. */
export function statementText(s: Statement): string {
  const lines = [
    `Statement of reasons for decision ${s.decisionId}`,
    '',
    `Date of the decision: ${s.decidedAt}`,
    `Content: ${s.contentType}`,
    `Restriction: ${s.restriction.description} (action "${s.restriction.action}").`,
  ];
  if (s.restriction.overturned)
    lines.push(
      `The automated action "${s.restriction.automatedAction}" was overturned on human review to "${s.restriction.action}".`,
    );
  lines.push('', `Ground: incompatible with the platform's terms. ${s.ground.explanation}.`);
  for (const c of s.ground.categories)
    lines.push(`  - ${c.category}: score ${c.score.toFixed(3)} ≥ threshold ${c.threshold} → ${c.action}`);
  if (s.ground.reviewerCategories.length > 0)
    lines.push(`Categories the reviewer found to apply: ${s.ground.reviewerCategories.join(', ')}`);
  const review = s.automation.humanReview;
  lines.push(
    '',
    `Detected by automated means: yes (${s.automation.detectedBy === 'hash_match' ? 'a match against a list of known content' : `the automated classifier "${s.automation.detectedBy}"`}).`,
    review
      ? `Decided by automated means: no. A person reviewed the decision on ${review.reviewedAt} and ` +
          `${review.outcome === 'overturn' ? `overturned it (from "${review.previousAction}" to "${review.action}")` : `confirmed it ("${review.action}")`}.`
      : 'Decided by automated means: yes; no person has reviewed it.',
    '',
    'Redress:',
  );
  const complaint = s.redress.internalComplaint;
  if (complaint.appeal?.status === 'open')
    lines.push(
      `  - An appeal (${complaint.appeal.appealId}) was filed on ${complaint.appeal.createdAt} and is open.`,
    );
  else {
    if (complaint.appeal)
      lines.push(`  - An earlier appeal was ${complaint.appeal.status} on ${complaint.appeal.resolvedAt}.`);
    lines.push('  - You can appeal this decision through the platform (internal complaint handling).');
  }
  lines.push(
    '  - You can refer the dispute to a certified out-of-court dispute settlement body.',
    '  - You can seek judicial redress before the courts.',
  );
  return `${lines.join('\n')}\n`;
}

/** Statements of reasons, one at a time or exported as JSON lines for a transparency database. */
export class StatementService {
  constructor(private readonly deps: ReviewDeps) {}

  async get(principal: Principal, decisionId: string): Promise<Statement> {
    requireAnyScope(principal, 'review', 'decisions:read');
    const decision = await this.deps.findDecision(principal.accountId, decisionId);
    const ids = [decisionId];
    const [reviews, appeals] = await Promise.all([
      this.deps.repository.latestReviews(principal.accountId, ids),
      this.deps.repository.latestAppeals(principal.accountId, ids),
    ]);
    return statementOf(decision, reviews.get(decisionId), appeals.get(decisionId));
  }

  /**
   * `GET /v1/statements/export?from&to&all`: validates at once (so a bad query is a 422, not a broken stream),
   * then yields one JSON line per statement, oldest first, a page of decisions at a time. Without `all=true` only
   * restrictions (effective action other than allow) are exported.
   */
  export(principal: Principal, query: Record<string, unknown>): AsyncGenerator<string> {
    requireAnyScope(principal, 'review', 'decisions:read');
    rejectUnknownParameters(query, ['from', 'to', 'all']);
    const time = (field: 'from' | 'to') => {
      const value = queryParameter(query, field);
      return value === undefined ? null : parseTime(field, value);
    };
    const range = { from: time('from'), to: time('to') };
    if (query.all !== undefined && query.all !== 'true' && query.all !== 'false')
      throw new AppError('INVALID_PARAMETER', 'all must be true or false', { field: 'all' });
    const all = query.all === 'true';
    return this.lines(principal.accountId, range, all);
  }

  private async *lines(
    accountId: string,
    range: { from: string | null; to: string | null },
    all: boolean,
  ): AsyncGenerator<string> {
    const { repository } = this.deps;
    let after: { createdAt: string; id: string } | null = null;
    for (;;) {
      const page = await repository.decisionPage(accountId, range, after, EXPORT_PAGE);
      if (page.length === 0) return;
      const ids = page.map((d) => d.decisionId);
      const [reviews, appeals] = await Promise.all([
        repository.latestReviews(accountId, ids),
        repository.latestAppeals(accountId, ids),
      ]);
      let chunk = '';
      for (const d of page) {
        const s = statementOf(d, reviews.get(d.decisionId), appeals.get(d.decisionId));
        if (all || s.restriction.restricted) chunk += `${JSON.stringify(s)}\n`;
      }
      if (chunk) yield chunk;
      const last = page[page.length - 1]!;
      after = { createdAt: last.timestamp, id: last.decisionId };
      if (page.length < EXPORT_PAGE) return;
    }
  }
}

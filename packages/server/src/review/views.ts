import { decisionView } from '../domain/decisions.ts';
import { buildEvent } from '../domain/events.ts';
import type { Action } from '../domain/taxonomy.ts';
import { fromJson } from '../storage/json.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { StoredEvent } from '../storage/repositories/events.ts';
import type { AppealsTable, ReviewItemsTable, ReviewsTable } from '../storage/schema.ts';

/** A human review as shown in a decision, a statement and the events. */
export function reviewView(row: ReviewsTable) {
  return {
    reviewId: row.id,
    outcome: row.outcome as 'confirm' | 'overturn',
    action: row.action as Action,
    previousAction: row.previous_action as Action,
    categories: fromJson<string[]>(row.categories),
    note: row.note,
    reviewer: { keyId: row.reviewer_key_id, name: row.reviewer_name },
    /** false: the decision was taken from the queue; true: reviewed without a queue entry */
    direct: row.item_id === null,
    appealId: row.appeal_id,
    reviewedAt: row.created_at,
  };
}
export type ReviewView = ReturnType<typeof reviewView>;

export function appealView(row: AppealsTable) {
  return {
    appealId: row.id,
    decisionId: row.decision_id,
    status: row.status as 'open' | 'upheld' | 'overturned',
    statement: row.statement,
    userId: row.user_id,
    reviewId: row.review_id,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}

/**
 * The human layer added to the decision view: `action` stays the automated action (the contract), `effectiveAction`
 * is what applies after the latest review, `review` that review (null when none).
 */
export function humanLayer(d: DecisionRecord, review: ReviewsTable | undefined) {
  return {
    effectiveAction: (review?.action ?? d.action) as Action,
    review: review ? reviewView(review) : null,
  };
}

export function reviewedDecisionView(d: DecisionRecord, review: ReviewsTable | undefined) {
  return { ...decisionView(d), ...humanLayer(d, review) };
}

export function queueItemView(row: ReviewItemsTable, now: string, decision?: DecisionRecord) {
  const leased = row.lease_key_id !== null && row.lease_expires_at !== null && row.lease_expires_at > now;
  return {
    itemId: row.id,
    decisionId: row.decision_id,
    reason: row.reason,
    priority: row.priority,
    policyId: row.policy_id,
    action: row.action,
    contentType: row.content_type,
    appealId: row.appeal_id,
    lease: leased ? { keyId: row.lease_key_id, expiresAt: row.lease_expires_at } : null,
    createdAt: row.created_at,
    ...(decision && { decision: decisionView(decision) }),
  };
}

/** The events of one recorded review: `decision.reviewed`, plus `decision.overturned` and `appeal.resolved`. */
export function reviewEvents(
  d: DecisionRecord,
  review: ReviewsTable,
  appeal: AppealsTable | null,
): StoredEvent[] {
  const data = { id: d.decisionId, ...reviewedDecisionView(d, review) };
  const events = [buildEvent(d.accountId, 'decision.reviewed', data, { createdAt: review.created_at })];
  if (review.outcome === 'overturn')
    events.push(buildEvent(d.accountId, 'decision.overturned', data, { createdAt: review.created_at }));
  if (appeal) {
    const view = appealView(appeal);
    events.push(
      buildEvent(
        d.accountId,
        'appeal.resolved',
        { id: view.appealId, ...view, review: reviewView(review), effectiveAction: review.action },
        { createdAt: review.created_at },
      ),
    );
  }
  return events;
}

/** Test deliveries of the review events, shaped like the real ones. */
export function reviewSampleData(
  type: 'decision.reviewed' | 'decision.overturned' | 'appeal.resolved',
  now: string,
): Record<string, unknown> {
  const overturned = type !== 'decision.reviewed';
  const review = {
    reviewId: 'rvw_test',
    outcome: overturned ? 'overturn' : 'confirm',
    action: overturned ? 'allow' : 'block',
    previousAction: 'block',
    categories: [],
    note: 'This is a test event',
    reviewer: { keyId: 'key_test', name: 'test' },
    direct: false,
    appealId: type === 'appeal.resolved' ? 'apl_test' : null,
    reviewedAt: now,
  };
  if (type === 'appeal.resolved') {
    return {
      id: 'apl_test',
      appealId: 'apl_test',
      decisionId: 'dec_test',
      status: 'overturned',
      statement: 'This is a test event',
      userId: null,
      reviewId: 'rvw_test',
      createdAt: now,
      resolvedAt: now,
      review,
      effectiveAction: 'allow',
      test: true,
    };
  }
  return {
    id: 'dec_test',
    decisionId: 'dec_test',
    content: 'This is a test event',
    contentType: 'text',
    safe: false,
    flagged: true,
    action: 'block',
    categories: [],
    policyId: 'default',
    timestamp: now,
    effectiveAction: review.action,
    review,
    test: true,
  };
}

import type { AuditSink } from '../audit/types.ts';
import type { DecisionSideWrite } from '../domain/decisions.ts';
import { AppError } from '../domain/errors.ts';
import type { EventOutbox } from '../domain/events.ts';
import { newId } from '../domain/ids.ts';
import { parsePolicyYaml } from '../domain/policies/parse.ts';
import { type Principal, requireScope } from '../domain/principal.ts';
import type { Db } from '../storage/database.ts';
import type { DecisionRecord } from '../storage/repositories/decisions.ts';
import type { ReviewItemsTable, ReviewsTable } from '../storage/schema.ts';
import { parseClaim, parseQueueQuery, parseReview } from './input.ts';
import { queueReason, type ReviewRules } from './policy-rules.ts';
import type { ReviewRepository } from './repository.ts';
import { queueItemView, reviewEvents, reviewedDecisionView, reviewView } from './views.ts';

/** What the review module needs from the rest of the service. */
export interface ReviewDeps {
  repository: ReviewRepository;
  events: EventOutbox;
  /** An account's decision, or 404 DECISION_NOT_FOUND. */
  findDecision(accountId: string, decisionId: string): Promise<DecisionRecord>;
  /** The name of an API key (the reviewer's identity beside its ID). */
  keyName(keyId: string): Promise<string | null>;
  /** The audit log: reviews and appeals are recorded there after they are committed. */
  audit: AuditSink;
}

const RULES_CACHE_SIZE = 1000;
const iso = (ms = Date.now()) => new Date(ms).toISOString();

/**
 * Human review queues (issue 18): entries are added in the transaction that stores the decision, claimed under a
 * lease by one reviewer key, and completed by a review that may overturn the automated action.
 */
export class ReviewService {
  /** Review rules per policy version: versions never change, so they are cached (bounded) once read. */
  private readonly rules = new Map<string, ReviewRules | null>();

  constructor(private readonly deps: ReviewDeps) {}

  /** The side write of `DecisionStore`: queue entries are written with the decision, so a crash loses none. */
  readonly sideWrite: DecisionSideWrite = async (trx, decisions) => {
    const rows: ReviewItemsTable[] = [];
    for (const d of decisions) {
      // a replay answers "what would this policy have done": nothing happened to anyone, nothing to review
      if (d.replayOf !== null) continue;
      const reason = queueReason(d, await this.rulesFor(trx, d));
      if (!reason) continue;
      rows.push({
        id: newId('rvi'),
        account_id: d.accountId,
        decision_id: d.decisionId,
        reason,
        priority: 0,
        status: 'pending',
        policy_id: d.policyId,
        action: d.action,
        content_type: d.contentType,
        appeal_id: null,
        lease_key_id: null,
        lease_expires_at: null,
        created_at: d.timestamp,
        completed_at: null,
      });
    }
    await this.deps.repository.insertItems(trx, rows);
  };

  private async rulesFor(trx: Db, d: DecisionRecord): Promise<ReviewRules | null> {
    const key = `${d.accountId}\u0000${d.policyId}\u0000${d.policyVersion}`;
    const cached = this.rules.get(key);
    if (cached !== undefined) return cached;
    const yaml = await this.deps.repository.policyYaml(trx, d.accountId, d.policyId, d.policyVersion);
    let rules: ReviewRules | null = null;
    if (yaml !== null) {
      try {
        rules = parsePolicyYaml(yaml).review ?? null;
      } catch {
        rules = null; // stored versions were valid when saved; never fail a decision over its review rules
      }
    }
    if (this.rules.size >= RULES_CACHE_SIZE) this.rules.clear();
    this.rules.set(key, rules);
    return rules;
  }

  /** `GET /v1/review/queue`: pending entries with their decisions, appeals first, then oldest first. */
  async queue(principal: Principal, query: Record<string, unknown>, page: { limit: number; offset: number }) {
    requireScope(principal, 'review');
    const { filter, available } = parseQueueQuery(query);
    const now = iso();
    const rows = await this.deps.repository.listQueue(
      principal.accountId,
      filter,
      { limit: page.limit + 1, offset: page.offset },
      available ? now : null,
    );
    const items = rows.slice(0, page.limit);
    const decisions = await this.deps.repository.decisions(
      principal.accountId,
      items.map((i) => i.decision_id),
    );
    return {
      items: items.map((i) => queueItemView(i, now, decisions.get(i.decision_id))),
      hasMore: rows.length > page.limit,
    };
  }

  /** `POST /v1/review/queue/claim`: up to `limit` entries leased to the calling key; never one another key holds. */
  async claim(principal: Principal, body: Record<string, unknown>) {
    requireScope(principal, 'review');
    const { limit, leaseSeconds, filter } = parseClaim(body);
    const nowMs = Date.now();
    const now = iso(nowMs);
    const leaseExpiresAt = iso(nowMs + leaseSeconds * 1000);
    const rows = await this.deps.repository.claim(
      principal.accountId,
      principal.keyId,
      filter,
      limit,
      now,
      leaseExpiresAt,
    );
    const decisions = await this.deps.repository.decisions(
      principal.accountId,
      rows.map((i) => i.decision_id),
    );
    return { items: rows.map((i) => queueItemView(i, now, decisions.get(i.decision_id))), leaseExpiresAt };
  }

  /** Gives a claimed entry back before its lease ends. */
  async release(principal: Principal, itemId: string) {
    requireScope(principal, 'review');
    const now = iso();
    if (!(await this.deps.repository.release(principal.accountId, itemId, principal.keyId, now))) {
      const item = await this.deps.repository.item(principal.accountId, itemId);
      if (!item) throw new AppError('NOT_FOUND', `Queue item ${itemId} does not exist`, { itemId });
      throw new AppError('REVIEW_LEASED', 'This key does not hold the lease of the item', {
        itemId,
        status: item.status,
      });
    }
    const item = (await this.deps.repository.item(principal.accountId, itemId))!;
    return queueItemView(item, now);
  }

  /**
   * `POST /v1/decisions/{id}/review`: records the reviewer's outcome. The decision's pending queue entry (if any)
   * is completed; one leased by another key is 409 REVIEW_LEASED. A decision not in the queue may be reviewed
   * directly (recorded with `direct: true`). An open appeal is resolved by the review. Events join the transaction.
   */
  async review(principal: Principal, decisionId: string, body: Record<string, unknown>) {
    requireScope(principal, 'review');
    const input = parseReview(body);
    const { repository } = this.deps;
    const decision = await this.deps.findDecision(principal.accountId, decisionId);
    const reviewerName = principal.keyName ?? (await this.deps.keyName(principal.keyId));
    const now = iso();
    const { row, previous, appeal } = await repository.db.transaction().execute(async (trx) => {
      let item = await repository.pendingItem(trx, decisionId);
      if (item && !(await repository.complete(trx, item.id, principal.keyId, now))) {
        const current = await repository.pendingItem(trx, decisionId);
        if (current) {
          throw new AppError('REVIEW_LEASED', 'Another reviewer holds the lease of this decision', {
            decisionId,
            itemId: current.id,
            leaseExpiresAt: current.lease_expires_at,
          });
        }
        item = null; // completed by a concurrent review meanwhile: this one is recorded as direct
      }
      const previous = (await repository.latestReviews(principal.accountId, [decisionId], trx)).get(
        decisionId,
      );
      const current = previous?.action ?? decision.action;
      if (input.outcome === 'confirm' && input.action !== null && input.action !== current) {
        throw new AppError('INVALID_PARAMETER', `A confirm keeps the action (${current}); use overturn`, {
          field: 'action',
          currentAction: current,
        });
      }
      if (input.outcome === 'overturn' && input.action === current) {
        throw new AppError('INVALID_PARAMETER', `An overturn must change the action (it is ${current})`, {
          field: 'action',
          currentAction: current,
        });
      }
      const open = await repository.openAppeal(trx, decisionId);
      const row: ReviewsTable = {
        id: newId('rvw'),
        account_id: principal.accountId,
        decision_id: decisionId,
        item_id: item?.id ?? null,
        outcome: input.outcome,
        action: input.outcome === 'overturn' ? input.action! : current,
        previous_action: current,
        categories: JSON.stringify(input.categories),
        note: input.note,
        reviewer_key_id: principal.keyId,
        reviewer_name: reviewerName,
        appeal_id: open?.id ?? null,
        created_at: now,
      };
      await repository.insertReview(trx, row);
      const appeal = open && {
        ...open,
        status: input.outcome === 'overturn' ? 'overturned' : 'upheld',
        review_id: row.id,
        resolved_at: now,
      };
      if (appeal) await repository.resolveAppeal(trx, appeal.id, appeal.status, row.id, now);
      await this.deps.events.recordSubscribed(trx, principal.accountId, reviewEvents(decision, row, appeal));
      return { row, previous, appeal };
    });
    const target = { type: 'decision', id: decisionId, accountId: principal.accountId };
    const before = { effectiveAction: previous?.action ?? decision.action };
    await this.deps.audit.record(principal, 'decision.reviewed', target, { before, after: reviewView(row) });
    if (appeal)
      await this.deps.audit.record(
        principal,
        'appeal.resolved',
        { type: 'appeal', id: appeal.id, accountId: principal.accountId },
        { before: { status: 'open' }, after: { status: appeal.status, reviewId: row.id } },
      );
    return reviewedDecisionView(decision, row);
  }

  /** Decision views with the human layer (`effectiveAction`, `review`), one query for the whole list. */
  async decisionViews(accountId: string, decisions: DecisionRecord[]) {
    const reviews = await this.deps.repository.latestReviews(
      accountId,
      decisions.map((d) => d.decisionId),
    );
    return decisions.map((d) => reviewedDecisionView(d, reviews.get(d.decisionId)));
  }
}

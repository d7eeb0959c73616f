import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { type Principal, requireAnyScope } from '../domain/principal.ts';
import type { AppealsTable } from '../storage/schema.ts';
import { parseAppeal } from './input.ts';
import type { ReviewDeps } from './service.ts';
import { appealView } from './views.ts';

/** Priority of an appealed decision's queue entry (others have 0): appeals are reviewed first. */
export const APPEAL_PRIORITY = 1;

/**
 * Appeals (issue 18): filed by the platform on behalf of its user, with the user's statement. An appealed decision
 * goes to the front of the review queue; the review that follows resolves the appeal (`upheld` when the decision
 * stands, `overturned` when its action changed) and announces it with `appeal.resolved`.
 */
export class AppealService {
  constructor(private readonly deps: ReviewDeps) {}

  async file(principal: Principal, decisionId: string, body: Record<string, unknown>) {
    requireAnyScope(principal, 'review', 'check');
    const input = parseAppeal(body);
    const decision = await this.deps.findDecision(principal.accountId, decisionId);
    const { repository } = this.deps;
    const now = new Date().toISOString();
    const row: AppealsTable = {
      id: newId('apl'),
      account_id: principal.accountId,
      decision_id: decisionId,
      statement: input.statement,
      user_id: input.userId,
      status: 'open',
      filed_by_key_id: principal.keyId,
      review_id: null,
      created_at: now,
      resolved_at: null,
    };
    await repository.db.transaction().execute(async (trx) => {
      if (!(await repository.insertAppeal(trx, row))) {
        const open = await repository.openAppeal(trx, decisionId);
        throw new AppError('APPEAL_ALREADY_OPEN', 'This decision already has an open appeal', {
          decisionId,
          appealId: open?.id,
        });
      }
      await repository.prioritise(trx, {
        id: newId('rvi'),
        account_id: principal.accountId,
        decision_id: decisionId,
        reason: 'appeal',
        priority: APPEAL_PRIORITY,
        status: 'pending',
        policy_id: decision.policyId,
        action: decision.action,
        content_type: decision.contentType,
        appeal_id: row.id,
        lease_key_id: null,
        lease_expires_at: null,
        created_at: now,
        completed_at: null,
      });
    });
    const view = appealView(row);
    await this.deps.audit.record(
      principal,
      'appeal.filed',
      { type: 'appeal', id: row.id, accountId: principal.accountId },
      { after: view },
    );
    return view;
  }

  /** A decision's appeals, oldest first. */
  async list(principal: Principal, decisionId: string) {
    requireAnyScope(principal, 'review', 'decisions:read');
    await this.deps.findDecision(principal.accountId, decisionId);
    const rows = await this.deps.repository.appeals(principal.accountId, decisionId);
    return { appeals: rows.map(appealView) };
  }
}

import type { Policy } from '../domain/policies/policy.ts';
import type { Action, CategoryName } from '../domain/taxonomy.ts';
import type { Db } from '../storage/database.ts';
import { fromJson, toJson } from '../storage/json.ts';
import type { PolicyShadowsTable } from '../storage/schema.ts';
import type { CandidateSource } from './candidate.ts';
import type { Comparison } from './report.ts';

export interface ShadowRecord {
  id: string;
  accountId: string;
  /** the live policy it runs beside */
  policyId: string;
  candidate: { policy: Policy; source: CandidateSource };
  /** the other policy it was copied from (source `policy`) */
  sourcePolicyId: string | null;
  until: string | null;
  active: boolean;
  createdAt: string;
  stoppedAt: string | null;
}

function toRecord(row: PolicyShadowsTable): ShadowRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    policyId: row.policy_id,
    candidate: fromJson<ShadowRecord['candidate']>(row.candidate),
    sourcePolicyId: row.source_policy_id,
    until: row.until,
    active: row.active === 1,
    createdAt: row.created_at,
    stoppedAt: row.stopped_at,
  };
}

/** Shadow policies and what they would have decided. */
export class ShadowRepository {
  constructor(private readonly db: Db) {}

  /** The running shadow of a live policy (stopped ones are history). `db` may be a transaction. */
  async active(accountId: string, policyId: string, db: Db = this.db): Promise<ShadowRecord | null> {
    const row = await db
      .selectFrom('policy_shadows')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('policy_id', '=', policyId)
      .where('active', '=', 1)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** The newest shadow of a live policy, running or not. */
  async latest(accountId: string, policyId: string): Promise<ShadowRecord | null> {
    const row = await this.db
      .selectFrom('policy_shadows')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('policy_id', '=', policyId)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** Shadows still running at `now` that hold `policyId`, as live policy or as the copied one. */
  async using(db: Db, accountId: string, policyId: string, now: string): Promise<ShadowRecord[]> {
    const rows = await db
      .selectFrom('policy_shadows')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .where((eb) => eb.or([eb('policy_id', '=', policyId), eb('source_policy_id', '=', policyId)]))
      .where((eb) => eb.or([eb('until', 'is', null), eb('until', '>', now)]))
      .execute();
    return rows.map(toRecord);
  }

  /** Stops the running shadow of the policy (if any) and starts `record`, in one transaction. */
  async replace(record: ShadowRecord): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('policy_shadows')
        .set({ active: 0, stopped_at: record.createdAt })
        .where('account_id', '=', record.accountId)
        .where('policy_id', '=', record.policyId)
        .where('active', '=', 1)
        .execute();
      await trx
        .insertInto('policy_shadows')
        .values({
          id: record.id,
          account_id: record.accountId,
          policy_id: record.policyId,
          candidate: toJson(record.candidate),
          source_policy_id: record.sourcePolicyId,
          until: record.until,
          active: 1,
          created_at: record.createdAt,
          stopped_at: null,
        })
        .execute();
    });
  }

  async stop(id: string, now: string): Promise<void> {
    await this.db
      .updateTable('policy_shadows')
      .set({ active: 0, stopped_at: now })
      .where('id', '=', id)
      .execute();
  }

  async record(db: Db, shadowId: string, accountId: string, c: Comparison, now: string): Promise<void> {
    await db
      .insertInto('shadow_decisions')
      .values({
        decision_id: c.decisionId,
        shadow_id: shadowId,
        account_id: accountId,
        old_action: c.oldAction,
        new_action: c.newAction,
        old_triggered: toJson(c.oldTriggered),
        new_triggered: c.newTriggered && toJson(c.newTriggered),
        not_replayable: c.notReplayable ?? null,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(['shadow_id', 'decision_id']).doNothing())
      .execute();
  }

  /** A page of a shadow's records after `cursor` (a decision ID), in decision order. */
  async comparisons(shadowId: string, cursor: string | null, size: number): Promise<Comparison[]> {
    let query = this.db.selectFrom('shadow_decisions').selectAll().where('shadow_id', '=', shadowId);
    if (cursor !== null) query = query.where('decision_id', '>', cursor);
    const rows = await query.orderBy('decision_id').limit(size).execute();
    return rows.map((r) => ({
      decisionId: r.decision_id,
      oldAction: r.old_action as Action,
      oldTriggered: fromJson<CategoryName[]>(r.old_triggered),
      newAction: r.new_action as Action | null,
      newTriggered: fromJson<CategoryName[]>(r.new_triggered),
      notReplayable: r.not_replayable as Comparison['notReplayable'],
    }));
  }
}

import { sql } from 'kysely';
import type { BankMatch } from '../banks/types.ts';
import type { Policy } from '../domain/policies/policy.ts';
import type { Db } from '../storage/database.ts';
import { fromJson, toJson } from '../storage/json.ts';
import type { ReplayData } from '../storage/repositories/decisions.ts';
import type { BacktestsTable } from '../storage/schema.ts';
import type { CandidateSource } from './candidate.ts';
import type { ReportState } from './report.ts';
import type { StoredDecision } from './stored-outcome.ts';

/** Which stored decisions a backtest replays. */
export interface BacktestWindow {
  /** decisions made under this policy ID; null: every decision of the account */
  policyId: string | null;
  /** ISO 8601, inclusive */
  from: string;
  /** ISO 8601, exclusive */
  to: string;
  /** at most this many decisions (the oldest first) */
  limit: number;
  /** example decision IDs per matrix cell */
  examples: number;
}

export type BacktestStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface BacktestRecord {
  id: string;
  accountId: string;
  policyId: string;
  candidate: { policy: Policy; source: CandidateSource };
  window: BacktestWindow;
  status: BacktestStatus;
  processed: number;
  total: number;
  cursor: string | null;
  report: ReportState | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

function toRecord(row: BacktestsTable): BacktestRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    policyId: row.policy_id,
    candidate: fromJson<BacktestRecord['candidate']>(row.candidate),
    window: fromJson<BacktestWindow>(row.window),
    status: row.status as BacktestStatus,
    processed: row.processed,
    total: row.total,
    cursor: row.cursor,
    report: fromJson<ReportState>(row.report),
    error: fromJson(row.error),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

/** Backtests and the scan of stored decisions they replay. */
export class BacktestRepository {
  constructor(private readonly db: Db) {}

  private scope(accountId: string, window: BacktestWindow) {
    let query = this.db
      .selectFrom('decisions')
      .where('account_id', '=', accountId)
      .where('created_at', '>=', window.from)
      .where('created_at', '<', window.to)
      // a replay is a copy of a decision, not traffic of its own
      .where('replay_of', 'is', null);
    if (window.policyId !== null) query = query.where('policy_id', '=', window.policyId);
    return query;
  }

  /** How many decisions the window holds (at most its limit). */
  async count(accountId: string, window: BacktestWindow): Promise<number> {
    const row = await this.scope(accountId, window)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirst();
    return Math.min(Number(row?.n ?? 0), window.limit);
  }

  /** The next page of decisions after `cursor` (a decision ID; IDs sort by creation), oldest first. */
  async page(
    accountId: string,
    window: BacktestWindow,
    cursor: string | null,
    size: number,
  ): Promise<StoredDecision[]> {
    let query = this.scope(accountId, window).select([
      'id',
      'content_type',
      'action',
      'categories',
      'raw_scores',
      'evaluated',
      'replay_data',
      'results',
      'bank_match',
      sql<number>`case when content = '' then 1 else 0 end`.as('redacted'),
    ]);
    if (cursor !== null) query = query.where('id', '>', cursor);
    const rows = await query.orderBy('id').limit(size).execute();
    return rows.map((r) => ({
      decisionId: r.id,
      contentType: r.content_type as StoredDecision['contentType'],
      action: r.action as StoredDecision['action'],
      categories: fromJson(r.categories),
      rawScores: fromJson(r.raw_scores),
      evaluated: fromJson(r.evaluated),
      replayData: fromJson<ReplayData>(r.replay_data),
      results: fromJson(r.results),
      bankMatch: fromJson<BankMatch>(r.bank_match),
      contentRedacted: Number(r.redacted) === 1,
    }));
  }

  async insert(record: BacktestRecord): Promise<void> {
    await this.db
      .insertInto('backtests')
      .values({
        id: record.id,
        account_id: record.accountId,
        policy_id: record.policyId,
        candidate: toJson(record.candidate),
        window: toJson(record.window),
        status: record.status,
        processed: record.processed,
        total: record.total,
        cursor: record.cursor,
        report: record.report && toJson(record.report),
        error: record.error && toJson(record.error),
        created_at: record.createdAt,
        updated_at: record.updatedAt,
        completed_at: record.completedAt,
      })
      .execute();
  }

  async get(id: string, accountId?: string): Promise<BacktestRecord | null> {
    let query = this.db.selectFrom('backtests').selectAll().where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** Saves progress: processed count, cursor and the running report (a checkpoint to resume from). */
  async update(
    id: string,
    changes: Partial<
      Pick<BacktestRecord, 'status' | 'processed' | 'total' | 'cursor' | 'report' | 'error' | 'completedAt'>
    >,
  ): Promise<void> {
    await this.db
      .updateTable('backtests')
      .set({
        ...(changes.status !== undefined && { status: changes.status }),
        ...(changes.processed !== undefined && { processed: changes.processed }),
        ...(changes.total !== undefined && { total: changes.total }),
        ...(changes.cursor !== undefined && { cursor: changes.cursor }),
        ...(changes.report !== undefined && { report: changes.report && toJson(changes.report) }),
        ...(changes.error !== undefined && { error: changes.error && toJson(changes.error) }),
        ...(changes.completedAt !== undefined && { completed_at: changes.completedAt }),
        updated_at: new Date().toISOString(),
      })
      .where('id', '=', id)
      .execute();
  }

  /** Backtests not finished and not touched since `before` (their job may have been lost). */
  async stalled(before: string, limit = 100): Promise<string[]> {
    const rows = await this.db
      .selectFrom('backtests')
      .select('id')
      .where('status', 'in', ['queued', 'running'])
      .where('updated_at', '<', before)
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }
}

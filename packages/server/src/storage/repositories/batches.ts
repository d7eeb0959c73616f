import type { Action } from '../../domain/taxonomy.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { BatchesTable } from '../schema.ts';
import { staleProcessingIds } from './processing.ts';

export type BatchStatus = 'processing' | 'completed' | 'failed';

export interface BatchItemResult {
  id: string;
  safe: boolean;
  flagged: boolean;
  action: Action;
  decisionId: string;
}

/** Why a batch failed: the error's code and message, and its details (e.g. the item at fault). */
export interface BatchError {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface BatchRecord {
  batchId: string;
  accountId: string;
  keyId: string;
  status: BatchStatus;
  policyId: string;
  totalItems: number;
  /** The submitted items, kept until the batch is done so processing can resume after a crash. */
  items: Array<Record<string, unknown>>;
  webhookUrl: string;
  requestId: string | null;
  error: BatchError | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

function toBatch(row: BatchesTable): BatchRecord {
  return {
    batchId: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    status: row.status as BatchStatus,
    policyId: row.policy_id,
    totalItems: row.total_items,
    items: fromJson(row.items),
    webhookUrl: row.webhook_url,
    requestId: row.request_id,
    error: fromJson(row.error),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

export class BatchRepository {
  constructor(private readonly db: Db) {}

  async insert(b: BatchRecord): Promise<void> {
    await this.db
      .insertInto('batches')
      .values({
        id: b.batchId,
        account_id: b.accountId,
        key_id: b.keyId,
        status: b.status,
        policy_id: b.policyId,
        total_items: b.totalItems,
        items: toJson(b.items),
        webhook_url: b.webhookUrl,
        request_id: b.requestId,
        error: b.error === null ? null : toJson(b.error),
        created_at: b.createdAt,
        updated_at: b.updatedAt,
        completed_at: b.completedAt,
      })
      .execute();
  }

  async get(batchId: string, accountId?: string): Promise<BatchRecord | null> {
    let query = this.db.selectFrom('batches').selectAll().where('id', '=', batchId);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row ? toBatch(row) : null;
  }

  /** Item results stored so far, in item order. */
  async results(batchId: string): Promise<Array<BatchItemResult & { index: number }>> {
    const rows = await this.db
      .selectFrom('batch_items')
      .selectAll()
      .where('batch_id', '=', batchId)
      .orderBy('idx')
      .execute();
    return rows.map((r) => ({
      index: r.idx,
      id: r.item_id,
      safe: r.safe === 1,
      flagged: r.flagged === 1,
      action: r.action as Action,
      decisionId: r.decision_id,
    }));
  }

  async processedCount(batchId: string): Promise<number> {
    const row = await this.db
      .selectFrom('batch_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('batch_id', '=', batchId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Runs inside the transaction that stores the items' decisions. */
  async insertResults(
    trx: Db,
    rows: Array<{ batchId: string; index: number } & BatchItemResult>,
    at: string,
  ): Promise<void> {
    if (rows.length === 0) return;
    await trx
      .insertInto('batch_items')
      .values(
        rows.map((r) => ({
          batch_id: r.batchId,
          idx: r.index,
          item_id: r.id,
          decision_id: r.decisionId,
          safe: r.safe ? 1 : 0,
          flagged: r.flagged ? 1 : 0,
          action: r.action,
        })),
      )
      .execute();
    await trx
      .updateTable('batches')
      .set({ updated_at: at })
      .where('id', 'in', [...new Set(rows.map((r) => r.batchId))])
      .execute();
  }

  /** Moves a processing batch to its final state; false when it was not processing any more. */
  async finish(
    trx: Db,
    batchId: string,
    status: 'completed' | 'failed',
    error: BatchError | null,
    at: string,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('batches')
      .set({
        status,
        error: error === null ? null : toJson(error),
        // The submitted content is not needed any more; the decisions keep what is stored of it.
        items: '[]',
        updated_at: at,
        completed_at: at,
      })
      .where('id', '=', batchId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  processingIds(updatedBefore: string, limit = 100): Promise<string[]> {
    return staleProcessingIds(this.db, 'batches', updatedBefore, limit);
  }
}

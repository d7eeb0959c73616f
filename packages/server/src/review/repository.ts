import type { Db } from '../storage/database.ts';
import { type DecisionRecord, toRecord } from '../storage/repositories/decisions.ts';
import type { AppealsTable, ReviewItemsTable, ReviewsTable } from '../storage/schema.ts';

/** Which pending queue entries a listing or a claim considers. */
export interface QueueFilter {
  reason?: string;
  policyId?: string;
  action?: string;
  contentType?: string;
}

/** The SQL of review queues, reviews and appeals; every method is scoped to one account. */
export class ReviewRepository {
  constructor(
    readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  /** The YAML of one version of a policy of this account (null: a built-in policy, or none). */
  async policyYaml(trx: Db, accountId: string, policyId: string, version: number): Promise<string | null> {
    const row = await trx
      .selectFrom('policy_versions')
      .select(['yaml', 'account_id'])
      .where('policy_id', '=', policyId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && row.account_id === accountId ? row.yaml : null;
  }

  async insertItems(trx: Db, rows: ReviewItemsTable[]): Promise<void> {
    if (rows.length > 0) await trx.insertInto('review_items').values(rows).execute();
  }

  private pending(db: Db, accountId: string, filter: QueueFilter) {
    let query = db
      .selectFrom('review_items')
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending');
    if (filter.reason) query = query.where('reason', '=', filter.reason);
    if (filter.policyId) query = query.where('policy_id', '=', filter.policyId);
    if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.contentType) query = query.where('content_type', '=', filter.contentType);
    return query;
  }

  /** Pending entries, appeals first, then oldest first; `availableAt` hides those leased at that time. */
  async listQueue(
    accountId: string,
    filter: QueueFilter,
    page: { limit: number; offset: number },
    availableAt: string | null,
  ): Promise<ReviewItemsTable[]> {
    let query = this.pending(this.db, accountId, filter).selectAll();
    if (availableAt)
      query = query.where((eb) =>
        eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', availableAt)]),
      );
    return query
      .orderBy('priority', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
  }

  /**
   * Leases up to `limit` available entries to one key in one statement. PostgreSQL: the candidate rows are locked
   * with SKIP LOCKED, so a concurrent claim takes others (a row is locked until the claim commits, and re-checked
   * against the conditions once a lock is granted); SQLite: the statement runs under the single writer lock.
   */
  async claim(
    accountId: string,
    keyId: string,
    filter: QueueFilter,
    limit: number,
    now: string,
    expiresAt: string,
  ): Promise<ReviewItemsTable[]> {
    const candidates = this.pending(this.db, accountId, filter)
      .select('id')
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
      .orderBy('priority', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    const lease = { lease_key_id: keyId, lease_expires_at: expiresAt };
    // PostgreSQL: the locking CTE runs once (`id IN (… LIMIT n FOR UPDATE SKIP LOCKED)` may be re-run per row by
    // the planner and lease more than n rows)
    const rows =
      this.engine === 'postgres'
        ? await this.db
            .with('picked', () => candidates.forUpdate().skipLocked())
            .updateTable('review_items')
            .set(lease)
            .from('picked')
            .whereRef('review_items.id', '=', 'picked.id')
            .returningAll('review_items')
            .execute()
        : await this.db
            .updateTable('review_items')
            .set(lease)
            .where('id', 'in', candidates)
            .where('status', '=', 'pending')
            .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
            .returningAll()
            .execute();
    return rows.sort(
      (a, b) =>
        b.priority - a.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
  }

  /** Gives a leased entry back to the queue; false when the key does not hold its lease. */
  async release(accountId: string, itemId: string, keyId: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('review_items')
      .set({ lease_key_id: null, lease_expires_at: null })
      .where('id', '=', itemId)
      .where('account_id', '=', accountId)
      .where('status', '=', 'pending')
      .where('lease_key_id', '=', keyId)
      .where('lease_expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async item(accountId: string, itemId: string): Promise<ReviewItemsTable | null> {
    const row = await this.db
      .selectFrom('review_items')
      .selectAll()
      .where('id', '=', itemId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row ?? null;
  }

  async pendingItem(trx: Db, decisionId: string): Promise<ReviewItemsTable | null> {
    const row = await trx
      .selectFrom('review_items')
      .selectAll()
      .where('decision_id', '=', decisionId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row ?? null;
  }

  /** Marks an entry done if it is still pending and not leased to another key; false otherwise. */
  async complete(trx: Db, itemId: string, keyId: string, now: string): Promise<boolean> {
    const result = await trx
      .updateTable('review_items')
      .set({ status: 'done', completed_at: now })
      .where('id', '=', itemId)
      .where('status', '=', 'pending')
      .where((eb) =>
        eb.or([
          eb('lease_key_id', 'is', null),
          eb('lease_key_id', '=', keyId),
          eb('lease_expires_at', '<=', now),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Puts an appealed decision at the front of the queue: raises its pending entry, or adds one. */
  async prioritise(trx: Db, item: ReviewItemsTable): Promise<void> {
    const raised = await trx
      .updateTable('review_items')
      .set({ reason: item.reason, priority: item.priority, appeal_id: item.appeal_id })
      .where('decision_id', '=', item.decision_id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(raised.numUpdatedRows) === 0) await trx.insertInto('review_items').values(item).execute();
  }

  async insertReview(trx: Db, row: ReviewsTable): Promise<void> {
    await trx.insertInto('reviews').values(row).execute();
  }

  /** The latest review of each of these decisions. */
  latestReviews(
    accountId: string,
    decisionIds: string[],
    db: Db = this.db,
  ): Promise<Map<string, ReviewsTable>> {
    return this.latestByDecision(db, 'reviews', accountId, decisionIds) as Promise<Map<string, ReviewsTable>>;
  }

  /** The latest row of `table` (reviews or appeals: both are ordered by creation) for each of these decisions. */
  private async latestByDecision(
    db: Db,
    table: 'reviews' | 'appeals',
    accountId: string,
    decisionIds: string[],
  ): Promise<Map<string, ReviewsTable | AppealsTable>> {
    const latest = new Map<string, ReviewsTable | AppealsTable>();
    if (decisionIds.length === 0) return latest;
    const rows = (await db
      .selectFrom(table)
      .selectAll()
      .where('account_id', '=', accountId)
      .where('decision_id', 'in', decisionIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute()) as (ReviewsTable | AppealsTable)[];
    for (const row of rows) latest.set(row.decision_id, row);
    return latest;
  }

  /** Inserts an appeal unless the decision has an open one; false then (the partial unique index decides). */
  async insertAppeal(trx: Db, row: AppealsTable): Promise<boolean> {
    const result = await trx
      .insertInto('appeals')
      .values(row)
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async openAppeal(trx: Db, decisionId: string): Promise<AppealsTable | null> {
    const row = await trx
      .selectFrom('appeals')
      .selectAll()
      .where('decision_id', '=', decisionId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return row ?? null;
  }

  async resolveAppeal(
    trx: Db,
    appealId: string,
    status: string,
    reviewId: string,
    now: string,
  ): Promise<void> {
    await trx
      .updateTable('appeals')
      .set({ status, review_id: reviewId, resolved_at: now })
      .where('id', '=', appealId)
      .execute();
  }

  async appeals(accountId: string, decisionId: string): Promise<AppealsTable[]> {
    return this.db
      .selectFrom('appeals')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('decision_id', '=', decisionId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** The latest appeal of each of these decisions. */
  latestAppeals(accountId: string, decisionIds: string[]): Promise<Map<string, AppealsTable>> {
    return this.latestByDecision(this.db, 'appeals', accountId, decisionIds) as Promise<
      Map<string, AppealsTable>
    >;
  }

  async decisions(accountId: string, ids: string[]): Promise<Map<string, DecisionRecord>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('decisions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    return new Map(rows.map((row) => [row.id, toRecord(row)]));
  }

  /**
   * One page of an account's decisions in time order after the keyset (created_at, id), for streaming exports:
   * each page is a bounded query, so an export of any size holds one page in memory.
   */
  async decisionPage(
    accountId: string,
    range: { from: string | null; to: string | null },
    after: { createdAt: string; id: string } | null,
    limit: number,
  ): Promise<DecisionRecord[]> {
    let query = this.db.selectFrom('decisions').selectAll().where('account_id', '=', accountId);
    if (range.from) query = query.where('created_at', '>=', range.from);
    if (range.to) query = query.where('created_at', '<', range.to);
    if (after)
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
        ]),
      );
    const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
    return rows.map(toRecord);
  }
}

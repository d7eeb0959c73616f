import type { Db } from '../database.ts';

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'in_use' }
  | { kind: 'mismatch' }
  | { kind: 'replay'; statusCode: number; response: string };

/** How long an idempotency key is remembered (decisions §5). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/** Idempotency records (decisions §5). The primary key (account, key) makes concurrent claims race-free. */
export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims `key` for a request with `requestHash`. A row older than `retentionMs` is treated as absent; a running
   * row whose lock has lapsed (its process died) is taken over.
   */
  async claim(
    accountId: string,
    key: string,
    requestHash: string,
    options: { now: Date; lockMs: number; retentionMs: number },
  ): Promise<IdempotencyClaim> {
    const now = options.now.toISOString();
    const lockedUntil = new Date(options.now.getTime() + options.lockMs).toISOString();
    const expiredBefore = new Date(options.now.getTime() - options.retentionMs).toISOString();
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db
        .insertInto('idempotency_keys')
        .values({
          account_id: accountId,
          key,
          request_hash: requestHash,
          state: 'running',
          status_code: null,
          response: null,
          locked_until: lockedUntil,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' };

      const existing = await this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!existing) continue; // deleted between our insert and select: try again
      if (existing.created_at < expiredBefore) {
        await this.release(accountId, key, existing.created_at);
        continue;
      }
      if (existing.request_hash !== requestHash) return { kind: 'mismatch' };
      if (existing.state === 'done') {
        return { kind: 'replay', statusCode: existing.status_code ?? 200, response: existing.response ?? '' };
      }
      if (existing.locked_until >= now) return { kind: 'in_use' };
      // The first request's process died while holding the key: take it over atomically.
      const taken = await this.db
        .updateTable('idempotency_keys')
        .set({ locked_until: lockedUntil })
        .where('account_id', '=', accountId)
        .where('key', '=', key)
        .where('state', '=', 'running')
        .where('locked_until', '=', existing.locked_until)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed' };
    }
    return { kind: 'in_use' };
  }

  async complete(accountId: string, key: string, statusCode: number, response: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'done', status_code: statusCode, response })
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .execute();
  }

  /** Forgets a claim (the request failed, so a retry may run it again). */
  async release(accountId: string, key: string, createdAt?: string): Promise<void> {
    let query = this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where('key', '=', key);
    if (createdAt) query = query.where('created_at', '=', createdAt);
    await query.execute();
  }

  async purgeOlderThan(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

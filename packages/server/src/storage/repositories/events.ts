import type { Db } from '../database.ts';
import type { EventsTable } from '../schema.ts';

export interface StoredEvent {
  id: string;
  accountId: string;
  type: string;
  /** The envelope exactly as delivered: the same bytes on every attempt. */
  payload: string;
  /** An ad-hoc destination (async batch / video `webhookUrl`), signed with the account's secret. */
  targetUrl: string | null;
  createdAt: string;
}

function toEvent(row: EventsTable): StoredEvent {
  return {
    id: row.id,
    accountId: row.account_id,
    type: row.type,
    payload: row.payload,
    targetUrl: row.target_url,
    createdAt: row.created_at,
  };
}

/** The event outbox: rows written in the transaction of what they report, fanned out to deliveries later. */
export class EventRepository {
  constructor(private readonly db: Db) {}

  async insert(executor: Db, events: StoredEvent[]): Promise<void> {
    for (let i = 0; i < events.length; i += 100) {
      await executor
        .insertInto('events')
        .values(
          events.slice(i, i + 100).map((e) => ({
            id: e.id,
            account_id: e.accountId,
            type: e.type,
            payload: e.payload,
            target_url: e.targetUrl,
            created_at: e.createdAt,
            dispatched_at: null,
          })),
        )
        .execute();
    }
  }

  async get(id: string): Promise<StoredEvent | null> {
    const row = await this.db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toEvent(row) : null;
  }

  /** Oldest undispatched events; on PostgreSQL rows locked by another relay are skipped. */
  async pending(executor: Db, limit: number, engine: 'sqlite' | 'postgres'): Promise<StoredEvent[]> {
    let query = executor
      .selectFrom('events')
      .selectAll()
      .where('dispatched_at', 'is', null)
      .orderBy('id')
      .limit(limit);
    if (engine === 'postgres') query = query.forUpdate().skipLocked();
    return (await query.execute()).map(toEvent);
  }

  async markDispatched(executor: Db, ids: string[], at: string): Promise<void> {
    if (ids.length === 0) return;
    await executor.updateTable('events').set({ dispatched_at: at }).where('id', 'in', ids).execute();
  }

  async countPending(): Promise<number> {
    const row = await this.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('dispatched_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async purgeDispatchedBefore(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom('events')
      .where('dispatched_at', 'is not', null)
      .where('created_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

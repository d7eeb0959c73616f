import { sql } from 'kysely';
import type { Db } from '../database.ts';

export interface UsageUnits {
  text: number;
  image: number;
  videoFrames: number;
}

export interface UsageRow extends UsageUnits {
  accountId: string;
  month: string;
  evaluations: number;
  /** USD spent on external providers. */
  costUsd: number;
}

export const total = (u: UsageUnits) => u.text + u.image + u.videoFrames;

/** Monthly evaluation counters per account; increments are single atomic statements on both engines. */
export class UsageRepository {
  constructor(private readonly db: Db) {}

  /** Adds units unconditionally (in the caller's transaction when given one). */
  async add(db: Db, accountId: string, month: string, units: UsageUnits): Promise<void> {
    const n = total(units);
    if (n === 0) return;
    await db
      .insertInto('usage')
      .values({
        account_id: accountId,
        month,
        evaluations: n,
        text_items: units.text,
        image_items: units.image,
        video_frames: units.videoFrames,
      })
      .onConflict((oc) =>
        oc.columns(['account_id', 'month']).doUpdateSet({
          evaluations: sql`usage.evaluations + ${n}`,
          text_items: sql`usage.text_items + ${units.text}`,
          image_items: sql`usage.image_items + ${units.image}`,
          video_frames: sql`usage.video_frames + ${units.videoFrames}`,
        }),
      )
      .execute();
  }

  /** Adds units now, in its own statement (evaluations that store no decision). */
  async addNow(accountId: string, month: string, units: UsageUnits): Promise<void> {
    await this.add(this.db, accountId, month, units);
  }

  /** Adds the USD an answered evaluation cost (in the caller's transaction), whoever reserved its units. */
  async addCost(db: Db, accountId: string, month: string, costUsd: number): Promise<void> {
    if (!(costUsd > 0)) return;
    await db
      .insertInto('usage')
      .values({
        account_id: accountId,
        month,
        evaluations: 0,
        text_items: 0,
        image_items: 0,
        video_frames: 0,
        cost_usd: costUsd,
      })
      .onConflict((oc) =>
        oc.columns(['account_id', 'month']).doUpdateSet({ cost_usd: sql`usage.cost_usd + ${costUsd}` }),
      )
      .execute();
  }

  /** Adds answered calls and their USD to providers' monthly spend (in the caller's transaction). */
  async addProviderSpend(
    db: Db,
    month: string,
    spend: Map<string, { calls: number; cost: number }>,
  ): Promise<void> {
    for (const [provider, { calls, cost }] of spend) {
      await db
        .insertInto('provider_spend')
        .values({ provider, month, calls, cost_usd: cost })
        .onConflict((oc) =>
          oc.columns(['provider', 'month']).doUpdateSet({
            calls: sql`provider_spend.calls + ${calls}`,
            cost_usd: sql`provider_spend.cost_usd + ${cost}`,
          }),
        )
        .execute();
    }
  }

  /** Each provider's answered calls and USD in a month. */
  async providerSpend(month: string): Promise<Map<string, { calls: number; costUsd: number }>> {
    const rows = await this.db.selectFrom('provider_spend').selectAll().where('month', '=', month).execute();
    return new Map(
      rows.map((r) => [
        r.provider,
        { calls: Number(r.calls), costUsd: Math.round(Number(r.cost_usd) * 1e6) / 1e6 },
      ]),
    );
  }

  /**
   * Adds units only if the month's total stays within `quota`, atomically (a single conditional UPDATE), so that
   * concurrent requests on any number of instances sharing the database cannot overshoot the quota together.
   */
  async addWithin(accountId: string, month: string, units: UsageUnits, quota: number): Promise<boolean> {
    const n = total(units);
    await this.db
      .insertInto('usage')
      .values({
        account_id: accountId,
        month,
        evaluations: 0,
        text_items: 0,
        image_items: 0,
        video_frames: 0,
      })
      .onConflict((oc) => oc.columns(['account_id', 'month']).doNothing())
      .execute();
    const result = await this.db
      .updateTable('usage')
      .set({
        evaluations: sql`evaluations + ${n}`,
        text_items: sql`text_items + ${units.text}`,
        image_items: sql`image_items + ${units.image}`,
        video_frames: sql`video_frames + ${units.videoFrames}`,
      })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .where(sql<boolean>`evaluations + ${n} <= ${quota}`)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async subtract(accountId: string, month: string, units: UsageUnits): Promise<void> {
    await this.db
      .updateTable('usage')
      .set({
        evaluations: sql`evaluations - ${total(units)}`,
        text_items: sql`text_items - ${units.text}`,
        image_items: sql`image_items - ${units.image}`,
        video_frames: sql`video_frames - ${units.videoFrames}`,
      })
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .execute();
  }

  async get(accountId: string, month: string): Promise<UsageRow> {
    const row = await this.db
      .selectFrom('usage')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('month', '=', month)
      .executeTakeFirst();
    return {
      accountId,
      month,
      evaluations: Number(row?.evaluations ?? 0),
      text: Number(row?.text_items ?? 0),
      image: Number(row?.image_items ?? 0),
      videoFrames: Number(row?.video_frames ?? 0),
      costUsd: Math.round(Number(row?.cost_usd ?? 0) * 1e6) / 1e6,
    };
  }
}

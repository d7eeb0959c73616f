import { sql } from 'kysely';
import type { Db } from '../database.ts';

export type StatsBucket = 'minute' | 'hour' | 'day';

export interface BucketRow {
  /** the bucket's start as stored text: "YYYY-MM-DDTHH:MM" (minute), "YYYY-MM-DDTHH" (hour) or "YYYY-MM-DD" (day) */
  key: string;
  count: number;
  actions: { allow: number; warn: number; flag: number; block: number };
  flagged: number;
}

/** Timestamps are ISO 8601 UTC text on both engines, so a bucket is a prefix of created_at. */
const PREFIX: Record<StatsBucket, number> = { minute: 16, hour: 13, day: 10 };

const num = (value: unknown) => Number(value ?? 0);

/**
 * Time-bucketed statistics of an account's decisions, computed by the database (grouping, conditional sums and
 * nearest-rank percentiles over window functions), so a month of decisions is never loaded into the process.
 */
export class DecisionStatsRepository {
  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async buckets(accountId: string, from: string, to: string, bucket: StatsBucket): Promise<BucketRow[]> {
    const key = sql.raw(`substr(created_at, 1, ${PREFIX[bucket]})`);
    const { rows } = await sql<Record<string, unknown>>`
      select ${key} as k, count(*) as n,
        sum(case when action = 'allow' then 1 else 0 end) as allow_n,
        sum(case when action = 'warn' then 1 else 0 end) as warn_n,
        sum(case when action = 'flag' then 1 else 0 end) as flag_n,
        sum(case when action = 'block' then 1 else 0 end) as block_n,
        sum(flagged) as flagged_n
      from decisions
      where account_id = ${accountId} and created_at >= ${from} and created_at < ${to}
      group by ${key}`.execute(this.db);
    return rows.map((row) => ({
      key: String(row.k),
      count: num(row.n),
      actions: {
        allow: num(row.allow_n),
        warn: num(row.warn_n),
        flag: num(row.flag_n),
        block: num(row.block_n),
      },
      flagged: num(row.flagged_n),
    }));
  }

  /** p50 and p99 latency per bucket (nearest rank); bucket null: over the whole range (key ""). */
  async latencyPercentiles(
    accountId: string,
    from: string,
    to: string,
    bucket: StatsBucket | null,
  ): Promise<Map<string, { p50: number; p99: number }>> {
    const key = sql.raw(bucket ? `substr(created_at, 1, ${PREFIX[bucket]})` : `''`);
    const { rows } = await sql<{ k: string; p50: unknown; p99: unknown }>`
      with ranked as (
        select ${key} as k, latency,
          row_number() over (partition by ${key} order by latency) as rn,
          count(*) over (partition by ${key}) as n
        from decisions
        where account_id = ${accountId} and created_at >= ${from} and created_at < ${to}
      )
      select k, min(case when rn >= n * 0.5 then latency end) as p50,
        min(case when rn >= n * 0.99 then latency end) as p99
      from ranked group by k`.execute(this.db);
    return new Map(rows.map((row) => [String(row.k), { p50: num(row.p50), p99: num(row.p99) }]));
  }

  /** How often each category triggered, per bucket. */
  async categoryTriggers(
    accountId: string,
    from: string,
    to: string,
    bucket: StatsBucket,
  ): Promise<{ key: string; category: string; count: number }[]> {
    const key = sql.raw(`substr(d.created_at, 1, ${PREFIX[bucket]})`);
    const query =
      this.engine === 'postgres'
        ? sql<{ k: string; category: string; n: unknown }>`
            select ${key} as k, c ->> 'category' as category, count(*) as n
            from decisions d, jsonb_array_elements(d.categories::jsonb) as c
            where d.account_id = ${accountId} and d.created_at >= ${from} and d.created_at < ${to}
              and (c ->> 'triggered') = 'true'
            group by 1, 2`
        : sql<{ k: string; category: string; n: unknown }>`
            select ${key} as k, json_extract(c.value, '$.category') as category, count(*) as n
            from decisions d, json_each(d.categories) as c
            where d.account_id = ${accountId} and d.created_at >= ${from} and d.created_at < ${to}
              and json_extract(c.value, '$.triggered') = 1
            group by 1, 2`;
    const { rows } = await query.execute(this.db);
    return rows.map((row) => ({ key: String(row.k), category: String(row.category), count: num(row.n) }));
  }
}

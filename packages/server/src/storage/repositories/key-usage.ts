import { sql } from 'kysely';
import type { Db } from '../database.ts';

export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  revokedAt: string | null;
}

export interface KeyCount {
  /** null: decisions stored before the key was recorded on decisions (migration 0014) */
  keyId: string | null;
  contentType: string;
  count: number;
}

/**
 * An account's stored decisions counted per API key and content type in a time window, by the database
 * (grouped over the `decisions_account_time` index), so a month of decisions is never loaded into the process.
 */
export class KeyUsageRepository {
  constructor(private readonly db: Db) {}

  async keys(accountId: string): Promise<KeyRow[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'prefix', 'last4', 'revoked_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      last4: r.last4,
      revokedAt: r.revoked_at,
    }));
  }

  async countByKey(accountId: string, from: string, to: string): Promise<KeyCount[]> {
    const { rows } = await sql<{ key_id: string | null; content_type: string; n: unknown }>`
      select key_id, content_type, count(*) as n
      from decisions
      where account_id = ${accountId} and created_at >= ${from} and created_at < ${to}
      group by key_id, content_type`.execute(this.db);
    return rows.map((r) => ({ keyId: r.key_id, contentType: r.content_type, count: Number(r.n) }));
  }
}

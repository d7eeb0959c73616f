import { precompile } from '../compiled.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { ApiKeysTable } from '../schema.ts';

export interface KeyRateLimit {
  perMinute: number;
  burstPerSecond: number;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  keyHash: string;
  prefix: string;
  last4: string;
  scopes: string[];
  expiresAt: string | null;
  revokedAt: string | null;
  /** approximate: written at most once a minute per key and instance */
  lastUsedAt?: string | null;
  rateLimit: KeyRateLimit | null;
  createdAt: string;
}

function toRecord(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    keyHash: row.key_hash,
    prefix: row.prefix,
    last4: row.last4,
    scopes: fromJson<string[]>(row.scopes),
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at ?? null,
    rateLimit: fromJson<KeyRateLimit>(row.rate_limit),
    createdAt: row.created_at,
  };
}

export type KeyWithAccount = ApiKeyRecord & {
  isOperator: boolean;
  monthlyQuota: number | null;
  trialEndsAt: string | null;
};

export class ApiKeyRepository {
  private readonly byHashQuery;

  constructor(private readonly db: Db) {
    this.byHashQuery = precompile(
      db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .selectAll('api_keys')
        .select(['accounts.is_operator', 'accounts.monthly_quota', 'accounts.trial_ends_at'])
        .where('api_keys.key_hash', '=', ''),
      (keyHash: string) => [keyHash],
    );
  }

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        account_id: key.accountId,
        name: key.name,
        key_hash: key.keyHash,
        prefix: key.prefix,
        last4: key.last4,
        scopes: toJson(key.scopes),
        expires_at: key.expiresAt,
        revoked_at: key.revokedAt,
        rate_limit: key.rateLimit ? toJson(key.rateLimit) : null,
        created_at: key.createdAt,
      })
      .execute();
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  /** The key and its account's operator flag in one query: the hot path of every authenticated request. */
  async findByHashWithAccount(keyHash: string): Promise<KeyWithAccount | null> {
    const { rows } = await this.db.executeQuery<
      ApiKeysTable & { is_operator: number; monthly_quota: number | null; trial_ends_at: string | null }
    >(this.byHashQuery(keyHash));
    const row = rows[0];
    if (!row) return null;
    return {
      ...toRecord(row),
      isOperator: row.is_operator === 1,
      monthlyQuota: row.monthly_quota === null ? null : Number(row.monthly_quota),
      trialEndsAt: row.trial_ends_at,
    };
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async list(accountId: string | null): Promise<ApiKeyRecord[]> {
    let query = this.db.selectFrom('api_keys').selectAll().orderBy('id');
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    return (await query.execute()).map(toRecord);
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async revoke(id: string, at: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
  }

  async update(id: string, patch: { name?: string; rateLimit?: KeyRateLimit | null }): Promise<void> {
    if (patch.name === undefined && patch.rateLimit === undefined) return;
    await this.db
      .updateTable('api_keys')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.rateLimit !== undefined && {
          rate_limit: patch.rateLimit ? toJson(patch.rateLimit) : null,
        }),
      })
      .where('id', '=', id)
      .execute();
  }
}

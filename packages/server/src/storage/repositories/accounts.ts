import type { Db } from '../database.ts';
import type { AccountsTable } from '../schema.ts';

export interface Account {
  accountId: string;
  name: string;
  monthlyQuota: number | null;
  trialEndsAt: string | null;
  signingSecret: string;
  isOperator: boolean;
  createdAt: string;
  updatedAt: string;
}

function toAccount(row: AccountsTable): Account {
  return {
    accountId: row.id,
    name: row.name,
    monthlyQuota: row.monthly_quota === null ? null : Number(row.monthly_quota),
    trialEndsAt: row.trial_ends_at,
    signingSecret: row.signing_secret,
    isOperator: row.is_operator === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class AccountRepository {
  constructor(private readonly db: Db) {}

  async insert(account: Account): Promise<void> {
    await this.db
      .insertInto('accounts')
      .values({
        id: account.accountId,
        name: account.name,
        monthly_quota: account.monthlyQuota,
        trial_ends_at: account.trialEndsAt,
        signing_secret: account.signingSecret,
        is_operator: account.isOperator ? 1 : 0,
        created_at: account.createdAt,
        updated_at: account.updatedAt,
      })
      .execute();
  }

  async get(accountId: string): Promise<Account | null> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  async findOperator(): Promise<Account | null> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('is_operator', '=', 1)
      .orderBy('id')
      .executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(limit: number, offset: number): Promise<Account[]> {
    const rows = await this.db
      .selectFrom('accounts')
      .selectAll()
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toAccount);
  }

  async update(
    accountId: string,
    patch: { name?: string; monthlyQuota?: number | null; trialEndsAt?: string | null; updatedAt: string },
  ): Promise<Account | null> {
    await this.db
      .updateTable('accounts')
      .set({
        ...(patch.name !== undefined && { name: patch.name }),
        ...(patch.monthlyQuota !== undefined && { monthly_quota: patch.monthlyQuota }),
        ...(patch.trialEndsAt !== undefined && { trial_ends_at: patch.trialEndsAt }),
        updated_at: patch.updatedAt,
      })
      .where('id', '=', accountId)
      .execute();
    return this.get(accountId);
  }
}

import { sql } from 'kysely';
import type { Db } from '../database.ts';
import type { BankItemsTable, BanksTable } from '../schema.ts';

export interface BankRecord {
  id: string;
  accountId: string;
  name: string;
  description: string | null;
  version: number;
  itemCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface BankItemRecord {
  id: string;
  bankId: string;
  accountId: string;
  fingerprint: string;
  pdq: string | null;
  pdqQuality: number | null;
  sha256: string | null;
  md5: string | null;
  label: string | null;
  source: 'image' | 'hash' | 'import';
  mediaRef: string | null;
  createdAt: string;
}

/** What the in-memory index needs of an item. */
export type IndexRow = Pick<BankItemRecord, 'id' | 'pdq' | 'sha256' | 'md5' | 'label'>;

function toBank(row: BanksTable): BankRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    description: row.description,
    version: Number(row.version),
    itemCount: Number(row.item_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toItem(row: BankItemsTable): BankItemRecord {
  return {
    id: row.id,
    bankId: row.bank_id,
    accountId: row.account_id,
    fingerprint: row.fingerprint,
    pdq: row.pdq,
    pdqQuality: row.pdq_quality,
    sha256: row.sha256,
    md5: row.md5,
    label: row.label,
    source: row.source as BankItemRecord['source'],
    mediaRef: row.media_ref,
    createdAt: row.created_at,
  };
}

function itemRow(i: BankItemRecord): BankItemsTable {
  return {
    id: i.id,
    bank_id: i.bankId,
    account_id: i.accountId,
    fingerprint: i.fingerprint,
    pdq: i.pdq,
    pdq_quality: i.pdqQuality,
    sha256: i.sha256,
    md5: i.md5,
    label: i.label,
    source: i.source,
    media_ref: i.mediaRef,
    created_at: i.createdAt,
  };
}

/** Rows per INSERT: 12 columns × 400 stays far below PostgreSQL's 65,535 parameters and SQLite's 32,766. */
const CHUNK = 400;

export class BankRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a bank; false when the account already has one of that name. */
  async insert(bank: BankRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('banks')
      .values({
        id: bank.id,
        account_id: bank.accountId,
        name: bank.name,
        description: bank.description,
        version: bank.version,
        item_count: bank.itemCount,
        created_at: bank.createdAt,
        updated_at: bank.updatedAt,
      })
      .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** A bank of the account by ID or by name. */
  async find(accountId: string, idOrName: string): Promise<BankRecord | null> {
    const row = await this.db
      .selectFrom('banks')
      .selectAll()
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
      .executeTakeFirst();
    return row ? toBank(row) : null;
  }

  async list(accountId: string): Promise<BankRecord[]> {
    const rows = await this.db
      .selectFrom('banks')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    return rows.map(toBank);
  }

  /** The versions of the named banks of an account (for the index to see what changed). */
  async versions(accountId: string, names: readonly string[]): Promise<BankRecord[]> {
    if (names.length === 0) return [];
    const rows = await this.db
      .selectFrom('banks')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', 'in', [...names])
      .execute();
    return rows.map(toBank);
  }

  async delete(accountId: string, bankId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('bank_items').where('bank_id', '=', bankId).execute();
      await trx.deleteFrom('banks').where('id', '=', bankId).where('account_id', '=', accountId).execute();
    });
  }

  /**
   * Adds items, skipping any whose fingerprint the bank already holds; bumps the bank's version and count in the
   * same transaction. Returns the items actually inserted.
   */
  async addItems(bankId: string, items: BankItemRecord[], now: string): Promise<BankItemRecord[]> {
    return this.db.transaction().execute(async (trx) => {
      const inserted: BankItemRecord[] = [];
      for (let i = 0; i < items.length; i += CHUNK) {
        const chunk = items.slice(i, i + CHUNK);
        const rows = await trx
          .insertInto('bank_items')
          .values(chunk.map(itemRow))
          .onConflict((oc) => oc.columns(['bank_id', 'fingerprint']).doNothing())
          .returning('id')
          .execute();
        const ids = new Set(rows.map((r) => r.id));
        for (const item of chunk) if (ids.has(item.id)) inserted.push(item);
      }
      if (inserted.length > 0) {
        await trx
          .updateTable('banks')
          .set({
            version: sql`version + 1`,
            item_count: sql`item_count + ${inserted.length}`,
            updated_at: now,
          })
          .where('id', '=', bankId)
          .execute();
      }
      return inserted;
    });
  }

  async findItemByFingerprint(bankId: string, fingerprint: string): Promise<BankItemRecord | null> {
    const row = await this.db
      .selectFrom('bank_items')
      .selectAll()
      .where('bank_id', '=', bankId)
      .where('fingerprint', '=', fingerprint)
      .executeTakeFirst();
    return row ? toItem(row) : null;
  }

  async listItems(bankId: string, limit: number, offset: number): Promise<BankItemRecord[]> {
    const rows = await this.db
      .selectFrom('bank_items')
      .selectAll()
      .where('bank_id', '=', bankId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toItem);
  }

  /** Deletes one item of the bank; false when the bank holds no such item. */
  async deleteItem(bankId: string, itemId: string, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .deleteFrom('bank_items')
        .where('bank_id', '=', bankId)
        .where('id', '=', itemId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await trx
        .updateTable('banks')
        .set({ version: sql`version + 1`, item_count: sql`item_count - 1`, updated_at: now })
        .where('id', '=', bankId)
        .execute();
      return true;
    });
  }

  /** Every item of a bank, as the index holds them. */
  async indexRows(bankId: string): Promise<IndexRow[]> {
    return (
      await this.db
        .selectFrom('bank_items')
        .select(['id', 'pdq', 'sha256', 'md5', 'label'])
        .where('bank_id', '=', bankId)
        .execute()
    ).map((r) => ({ id: r.id, pdq: r.pdq, sha256: r.sha256, md5: r.md5, label: r.label }));
  }
}

import { sql } from 'kysely';
import type { Action } from '../../domain/taxonomy.ts';
import type { ListCaps, ListKind } from '../../lists/types.ts';
import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { ListEntriesTable, ListsTable } from '../schema.ts';

export interface ListRecord {
  id: string;
  accountId: string;
  name: string;
  kind: ListKind;
  action: Action | null;
  caps: ListCaps | null;
  description: string | null;
  version: number;
  entryCount: number;
  regexCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface ListEntryRecord {
  id: string;
  listId: string;
  accountId: string;
  type: 'term' | 'regex';
  value: string;
  normalised: string;
  createdAt: string;
}

function toList(row: ListsTable): ListRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    kind: row.kind as ListKind,
    action: row.action as Action | null,
    caps: fromJson<ListCaps>(row.caps),
    description: row.description,
    version: Number(row.version),
    entryCount: Number(row.entry_count),
    regexCount: Number(row.regex_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toEntry(row: ListEntriesTable): ListEntryRecord {
  return {
    id: row.id,
    listId: row.list_id,
    accountId: row.account_id,
    type: row.type as ListEntryRecord['type'],
    value: row.value,
    normalised: row.normalised,
    createdAt: row.created_at,
  };
}

/** Rows per INSERT: 7 columns × 1,000 stays far below PostgreSQL's 65,535 parameters and SQLite's 32,766. */
const CHUNK = 1000;

export class ListRepository {
  constructor(private readonly db: Db) {}

  /** Inserts a list and its first entries in one transaction; false when the account has a list of that name. */
  async insert(list: ListRecord, entries: ListEntryRecord[]): Promise<ListEntryRecord[] | false> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .insertInto('lists')
        .values({
          id: list.id,
          account_id: list.accountId,
          name: list.name,
          kind: list.kind,
          action: list.action,
          caps: list.caps ? toJson(list.caps) : null,
          description: list.description,
          version: list.version,
          entry_count: 0,
          regex_count: 0,
          created_at: list.createdAt,
          updated_at: list.updatedAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      return entries.length > 0 ? this.addIn(trx, list.id, entries, list.createdAt) : [];
    });
  }

  /** A list of the account by ID or by name. */
  async find(accountId: string, idOrName: string): Promise<ListRecord | null> {
    const row = await this.db
      .selectFrom('lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('id', '=', idOrName), eb('name', '=', idOrName)]))
      .executeTakeFirst();
    return row ? toList(row) : null;
  }

  async list(accountId: string): Promise<ListRecord[]> {
    const rows = await this.db
      .selectFrom('lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    return rows.map(toList);
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('lists')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async delete(accountId: string, listId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('list_entries').where('list_id', '=', listId).execute();
      await trx.deleteFrom('lists').where('id', '=', listId).where('account_id', '=', accountId).execute();
    });
  }

  /**
   * Adds entries, skipping any whose normalised form the list already holds; bumps the list's version and counts
   * in the same transaction. Returns the entries actually inserted.
   */
  async addEntries(listId: string, entries: ListEntryRecord[], now: string): Promise<ListEntryRecord[]> {
    return this.db.transaction().execute((trx) => this.addIn(trx, listId, entries, now));
  }

  private async addIn(trx: Db, listId: string, entries: ListEntryRecord[], now: string) {
    const inserted: ListEntryRecord[] = [];
    for (let i = 0; i < entries.length; i += CHUNK) {
      const chunk = entries.slice(i, i + CHUNK);
      const rows = await trx
        .insertInto('list_entries')
        .values(
          chunk.map((e) => ({
            id: e.id,
            list_id: e.listId,
            account_id: e.accountId,
            type: e.type,
            value: e.value,
            normalised: e.normalised,
            created_at: e.createdAt,
          })),
        )
        .onConflict((oc) => oc.columns(['list_id', 'normalised']).doNothing())
        .returning('id')
        .execute();
      const ids = new Set(rows.map((r) => r.id));
      for (const entry of chunk) if (ids.has(entry.id)) inserted.push(entry);
    }
    if (inserted.length > 0) await this.bump(trx, listId, inserted, 1, now);
    return inserted;
  }

  /** Removes the entries with these normalised forms or IDs; returns those removed. */
  async removeEntries(listId: string, keys: string[], now: string): Promise<ListEntryRecord[]> {
    return this.db.transaction().execute(async (trx) => {
      const removed: ListEntryRecord[] = [];
      for (let i = 0; i < keys.length; i += CHUNK) {
        const chunk = keys.slice(i, i + CHUNK);
        const rows = await trx
          .deleteFrom('list_entries')
          .where('list_id', '=', listId)
          .where((eb) => eb.or([eb('normalised', 'in', chunk), eb('id', 'in', chunk)]))
          .returningAll()
          .execute();
        removed.push(...rows.map(toEntry));
      }
      if (removed.length > 0) await this.bump(trx, listId, removed, -1, now);
      return removed;
    });
  }

  private async bump(trx: Db, listId: string, changed: ListEntryRecord[], sign: 1 | -1, now: string) {
    const regexes = changed.filter((e) => e.type === 'regex').length;
    await trx
      .updateTable('lists')
      .set({
        version: sql`version + 1`,
        entry_count: sql`entry_count + ${sign * changed.length}`,
        regex_count: sql`regex_count + ${sign * regexes}`,
        updated_at: now,
      })
      .where('id', '=', listId)
      .execute();
  }

  async listEntries(listId: string, limit: number, offset: number): Promise<ListEntryRecord[]> {
    const rows = await this.db
      .selectFrom('list_entries')
      .selectAll()
      .where('list_id', '=', listId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toEntry);
  }

  /** Every entry of a list, as the compiled matcher holds them (in insertion order). */
  async matchRows(listId: string): Promise<Pick<ListEntryRecord, 'id' | 'type' | 'value' | 'normalised'>[]> {
    const rows = await this.db
      .selectFrom('list_entries')
      .select(['id', 'type', 'value', 'normalised'])
      .where('list_id', '=', listId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      type: r.type as 'term' | 'regex',
      value: r.value,
      normalised: r.normalised,
    }));
  }

  /** The named lists of an account (for matchers to see what changed, and policies what exists). */
  async byNames(accountId: string, names: readonly string[]): Promise<ListRecord[]> {
    if (names.length === 0) return [];
    const rows = await this.db
      .selectFrom('lists')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', 'in', [...names])
      .execute();
    return rows.map(toList);
  }
}

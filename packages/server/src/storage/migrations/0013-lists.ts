import type { Kysely } from 'kysely';

/**
 * Match lists (issue 18, item 8): named block and allow lists of terms, phrases and regexes per account. An entry's
 * `normalised` form (the text model's normalisation) is unique per list; `version` changes with every entry change
 * so that each instance's compiled matcher knows when to rebuild.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lists')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('caps', 'text')
    .addColumn('description', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('entry_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('regex_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lists_account_name')
    .on('lists')
    .columns(['account_id', 'name'])
    .unique()
    .execute();
  await db.schema
    .createTable('list_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('normalised', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('list_entries_normalised')
    .on('list_entries')
    .columns(['list_id', 'normalised'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('list_entries').ifExists().execute();
  await db.schema.dropTable('lists').ifExists().execute();
}

import type { Kysely } from 'kysely';

/**
 * Hash banks (issue 20): named lists of known images per account, each item a PDQ hash and/or exact digests with a
 * label; `version` changes with every item change so that each instance's in-memory index knows when to reload.
 * Decisions record the bank match that decided them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('banks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('item_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('banks_account_name')
    .on('banks')
    .columns(['account_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('bank_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('bank_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    // what makes two items the same: `sha256:<hex>` for images, `<type>:<hex>` for a hash given alone
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('pdq', 'text')
    .addColumn('pdq_quality', 'integer')
    .addColumn('sha256', 'text')
    .addColumn('md5', 'text')
    .addColumn('label', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('media_ref', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('bank_items_fingerprint')
    .on('bank_items')
    .columns(['bank_id', 'fingerprint'])
    .unique()
    .execute();

  await db.schema.alterTable('decisions').addColumn('bank_match', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').dropColumn('bank_match').execute();
  await db.schema.dropTable('bank_items').ifExists().execute();
  await db.schema.dropTable('banks').ifExists().execute();
}

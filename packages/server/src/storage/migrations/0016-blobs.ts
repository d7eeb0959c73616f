import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Blobs in the database (issue 21 §10): evidence frames and uploaded videos of scaled-out deployments on PostgreSQL
 * without an object store, one row per chunk of at most 1 MB. Created on SQLite too (unused there: a single machine
 * keeps blobs as files), so that both engines have the same schema.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('blobs')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('chunk', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blobs_pkey', ['key', 'chunk'])
    .execute();
  await db.schema.createIndex('blobs_created').on('blobs').columns(['created_at']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('blobs').ifExists().execute();
}

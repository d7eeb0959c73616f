import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('evaluations', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('text_items', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('image_items', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('video_frames', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('usage_pk', ['account_id', 'month'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage').ifExists().execute();
}

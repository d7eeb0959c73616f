import type { Kysely } from 'kysely';

/** Asynchronous video checks (their progress and lifecycle) and server-wide secrets (evidence URL signing). */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('videos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('file', 'text', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('frame_interval', 'double precision', (c) => c.notNull())
    .addColumn('max_frames', 'integer', (c) => c.notNull())
    .addColumn('max_duration', 'double precision', (c) => c.notNull())
    .addColumn('duration', 'double precision', (c) => c.notNull())
    .addColumn('frames_total', 'integer', (c) => c.notNull())
    .addColumn('frames_processed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved_frames', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved_month', 'text', (c) => c.notNull())
    .addColumn('estimated_seconds', 'double precision', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('error', 'text')
    .addColumn('started_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('videos_status').on('videos').columns(['status', 'updated_at']).execute();

  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('server_secrets').ifExists().execute();
  await db.schema.dropTable('videos').ifExists().execute();
}

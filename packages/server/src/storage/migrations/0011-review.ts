import { type Kysely, sql } from 'kysely';

/**
 * Human review (issue 18): the review queue (one pending entry per decision at most, leased to one reviewer key at
 * a time), the reviews themselves (the latest one gives a decision its effective action; the original stays in the
 * decision row), and appeals (at most one open per decision).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('review_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    // category | action | sample | appeal
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    // pending | done
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('appeal_id', 'text')
    .addColumn('lease_key_id', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('review_items_queue')
    .on('review_items')
    .columns(['account_id', 'status', 'priority', 'created_at'])
    .execute();
  // at most one pending entry per decision: an appeal raises the priority of the pending one instead
  await sql`CREATE UNIQUE INDEX review_items_pending ON review_items (decision_id) WHERE status = 'pending'`.execute(
    db,
  );

  await db.schema
    .createTable('reviews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text')
    // confirm | overturn
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('previous_action', 'text', (c) => c.notNull())
    .addColumn('categories', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('reviewer_key_id', 'text', (c) => c.notNull())
    .addColumn('reviewer_name', 'text')
    .addColumn('appeal_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('reviews_decision')
    .on('reviews')
    .columns(['decision_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('appeals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    // open | upheld | overturned
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('filed_by_key_id', 'text', (c) => c.notNull())
    .addColumn('review_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .execute();
  await db.schema
    .createIndex('appeals_decision')
    .on('appeals')
    .columns(['decision_id', 'created_at'])
    .execute();
  await sql`CREATE UNIQUE INDEX appeals_open ON appeals (decision_id) WHERE status = 'open'`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('appeals').ifExists().execute();
  await db.schema.dropTable('reviews').ifExists().execute();
  await db.schema.dropTable('review_items').ifExists().execute();
}

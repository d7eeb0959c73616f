import type { Kysely } from 'kysely';

/**
 * Policy life cycle (issue 18): shadow policies (one active per live policy, with a frozen copy of the candidate
 * and the shadow action recorded beside each live decision) and backtests (a candidate replayed over stored
 * decisions; a large one runs as a job whose progress, cursor and partial report are kept here so that it resumes
 * after a restart). Policy deletion keeps `policy_versions`, so decisions keep the version they were made under.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('policy_shadows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('candidate', 'text', (c) => c.notNull())
    .addColumn('source_policy_id', 'text')
    .addColumn('until', 'text')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('stopped_at', 'text')
    .execute();
  await db.schema
    .createIndex('policy_shadows_live')
    .on('policy_shadows')
    .columns(['account_id', 'policy_id', 'active'])
    .execute();
  await db.schema
    .createTable('shadow_decisions')
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('shadow_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('old_action', 'text', (c) => c.notNull())
    .addColumn('new_action', 'text')
    .addColumn('old_triggered', 'text', (c) => c.notNull())
    .addColumn('new_triggered', 'text')
    .addColumn('not_replayable', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shadow_decisions_pk', ['shadow_id', 'decision_id'])
    .execute();
  await db.schema
    .createTable('backtests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'text', (c) => c.notNull())
    .addColumn('candidate', 'text', (c) => c.notNull())
    .addColumn('window', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('processed', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('cursor', 'text')
    .addColumn('report', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema.createIndex('backtests_account').on('backtests').columns(['account_id', 'id']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backtests').ifExists().execute();
  await db.schema.dropTable('shadow_decisions').ifExists().execute();
  await db.schema.dropTable('policy_shadows').ifExists().execute();
}

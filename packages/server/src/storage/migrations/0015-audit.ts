import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The audit log (issue 18): one append-only row per human or administrative action. The database itself refuses
 * UPDATE and DELETE on it (a trigger on each engine), so no code path — nor a mistaken one — can rewrite history.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_key_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('actor_account_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'id']).execute();
  await db.schema
    .createIndex('audit_log_target')
    .on('audit_log')
    .columns(['account_id', 'target_type', 'target_id'])
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'audit_log is append-only'; END $$`.execute(db);
    await sql`CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
      FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`.execute(db);
  } else {
    for (const op of ['UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER audit_log_no_${op.toLowerCase()} BEFORE ${op} ON audit_log
           BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END`,
        )
        .execute(db);
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').ifExists().execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`DROP FUNCTION IF EXISTS audit_log_append_only()`.execute(db);
  }
}

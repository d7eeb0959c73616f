import type { Kysely } from 'kysely';

/**
 * Web console sessions: the signed-in admin key is held here, server-side, by the SHA-256 of an opaque cookie token
 * (the browser never holds the key), with a session-bound CSRF token and an absolute expiry. Decisions also get an
 * (account, created_at) index: the console's time-range filters and statistics read by time; keys get last_used_at.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_expiry')
    .on('console_sessions')
    .column('expires_at')
    .execute();
  // when each key was last used (written at most once a minute per key and instance): the console's key list
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
  await db.schema
    .createIndex('decisions_account_time')
    .on('decisions')
    .columns(['account_id', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('decisions_account_time').ifExists().execute();
  await db.schema.alterTable('api_keys').dropColumn('last_used_at').execute();
  await db.schema.dropTable('console_sessions').ifExists().execute();
}

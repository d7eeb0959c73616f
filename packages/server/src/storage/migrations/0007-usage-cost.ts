import type { Kysely } from 'kysely';

/**
 * Spend on external AI providers (issue 19), in USD: per account and month next to its evaluation counts, and per
 * provider and month (what GET /v1/providers shows, across instances and restarts).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('usage')
    .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('provider_spend')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('provider_spend_pk', ['provider', 'month'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_spend').ifExists().execute();
  await db.schema.alterTable('usage').dropColumn('cost_usd').execute();
}

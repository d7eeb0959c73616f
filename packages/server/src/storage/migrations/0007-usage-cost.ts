import type { Kysely } from 'kysely';

/** The month's spend on external providers per account, in USD (issue 19), next to its evaluation counts. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('usage')
    .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('usage').dropColumn('cost_usd').execute();
}

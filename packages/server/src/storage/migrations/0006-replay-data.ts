import type { Kysely } from 'kysely';

/**
 * What a replay under another policy needs beyond the decision's own fields (JSON): the highlights of categories its
 * policy did not list, and for a multi-modal decision each item's scores (and a video item's per-frame scores).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').addColumn('replay_data', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').dropColumn('replay_data').execute();
}

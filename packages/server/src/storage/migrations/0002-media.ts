import type { Kysely } from 'kysely';

/** Images are stored with their decision by reference and fingerprint (URL or sha256, size, dHash), never bytes. */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').addColumn('media', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').dropColumn('media').execute();
}

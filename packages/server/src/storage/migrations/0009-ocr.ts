import type { Kysely } from 'kysely';

/** Text read in an image (JSON OcrResult), shown with its decision (issue 20). */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').addColumn('ocr', 'text').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('decisions').dropColumn('ocr').execute();
}

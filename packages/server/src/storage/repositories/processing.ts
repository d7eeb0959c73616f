import type { Db } from '../database.ts';

/**
 * IDs of batches or videos still `processing` whose last progress is older than `updatedBefore`, oldest first: work a
 * process that died left behind, for the worker's sweep to take up again.
 */
export async function staleProcessingIds(
  db: Db,
  table: 'batches' | 'videos',
  updatedBefore: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom(table)
    .select('id')
    .where('status', '=', 'processing')
    .where('updated_at', '<', updatedBefore)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

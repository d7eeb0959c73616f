import { Readable } from 'node:stream';
import type { DecisionFilter } from '../domain/decision-filters.ts';
import type { DecisionRecord, DecisionRepository } from '../storage/repositories/decisions.ts';

/** Decisions read per query: bounds the memory an export holds at once, whatever its length. */
export const EXPORT_PAGE = 500;

/**
 * Every decision of an account matching the filter, newest first, a page at a time by keyset (`id < last`), so
 * each query is an index range however deep the export is, and decisions stored meanwhile neither shift nor repeat
 * what follows (they are newer than the first page, so not in this export).
 */
export async function* decisionPages(
  repository: DecisionRepository,
  accountId: string,
  filter: DecisionFilter,
): AsyncGenerator<DecisionRecord[]> {
  let before: string | null = null;
  for (;;) {
    const page = await repository.listBefore(accountId, before, EXPORT_PAGE, filter);
    if (page.length > 0) yield page;
    if (page.length < EXPORT_PAGE) return;
    before = page[page.length - 1]!.decisionId;
  }
}

/**
 * JSON Lines (one JSON object and a newline per decision) as a stream that reads the next page only when the
 * client has taken the previous one (backpressure), so a long export never sits in memory.
 */
export function jsonLines<T>(pages: AsyncIterable<T[]>, view: (item: T) => unknown): Readable {
  async function* lines() {
    for await (const page of pages) {
      let chunk = '';
      for (const item of page) chunk += `${JSON.stringify(view(item))}\n`;
      yield chunk;
    }
  }
  return Readable.from(lines(), { objectMode: false, highWaterMark: 1 });
}

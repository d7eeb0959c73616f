import type { Kysely } from 'kysely';
import { type Addressed, withoutAddresses } from '../../retention/redact.ts';

/**
 * Decisions stored without their content (`doNotStore`, or redacted by VERDICT_CONTENT_RETENTION) before redaction
 * covered image and video addresses still named them: an image's URL in `media[].ref` and `contentRef`, a multi-modal
 * request's text and URLs (which its cURL command repeated). This removes them from those rows, as redaction now
 * does. Stored content is never empty otherwise, so `content = ''` finds exactly those rows; no schema change.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  let after = '';
  for (;;) {
    const rows: Row[] = await db
      .selectFrom('decisions')
      .select(['id', 'request', 'media', 'results', 'bank_match'])
      .where('content', '=', '')
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      const scrubbed = scrub(row);
      if (scrubbed) await db.updateTable('decisions').set(scrubbed).where('id', '=', row.id).execute();
    }
  }
}

export async function down(): Promise<void> {
  // nothing to undo: the addresses are gone
}

interface Row {
  id: string;
  request: string;
  media: string | null;
  results: string | null;
  bank_match: string | null;
}

function parse<T>(value: string | null): T | null {
  return value === null ? null : (JSON.parse(value) as T);
}

/** The row's columns without addresses, or null when it named none. */
function scrub(row: Row): Omit<Row, 'id'> | null {
  const d: Addressed = {
    request: parse<Addressed['request']>(row.request) ?? {},
    media: parse<NonNullable<Addressed['media']>>(row.media),
    results: parse<unknown[]>(row.results),
    bankMatch: parse<NonNullable<Addressed['bankMatch']>>(row.bank_match),
  };
  withoutAddresses(d);
  const next = {
    request: JSON.stringify(d.request),
    media: d.media === null ? null : JSON.stringify(d.media),
    results: d.results === null ? null : JSON.stringify(d.results),
    bank_match: d.bankMatch === null ? null : JSON.stringify(d.bankMatch),
  };
  const same =
    next.request === row.request &&
    next.media === row.media &&
    next.results === row.results &&
    next.bank_match === row.bank_match;
  return same ? null : next;
}

import { CompiledQuery, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DecisionSideWrite } from '../domain/decisions.ts';
import { decisionText, searchWords } from './text.ts';

/**
 * The full-text index of decision content (migration 0014-decision-search). Entries are written by `sideWrite`,
 * which the decision store runs in the transaction that inserts the decisions, so a committed decision is always
 * searchable and a rolled-back one never is; the migration's triggers remove entries when decisions are deleted or
 * redacted. A decision stored without content (doNotStore, or already redacted) gets no entry.
 */
export class SearchIndex {
  constructor(private readonly engine: 'sqlite' | 'postgres') {}

  readonly sideWrite: DecisionSideWrite = async (trx, decisions, rowids) => {
    const entries: { id: string; text: string; rowid: bigint | undefined }[] = [];
    decisions.forEach((d, i) => {
      const text = decisionText(d.contentType, d.content);
      if (text) entries.push({ id: d.decisionId, text, rowid: rowids[i] });
    });
    if (entries.length === 0) return;
    if (this.engine === 'postgres') {
      // one statement for the whole commit group: every statement is a round trip
      await trx.executeQuery(
        CompiledQuery.raw(
          `insert into decision_search (decision_id, body)
           select id, to_tsvector('simple', body) from unnest($1::text[], $2::text[]) as e(id, body)`,
          [entries.map((e) => e.id), entries.map((e) => e.text)],
        ),
      );
      return;
    }
    // keyed by the decision's rowid, which the contentless FTS5 table needs: the insert's own when the store passed
    // it (looking it up by ID doubled the cost of an entry: 34 vs 16 µs), else looked up
    for (const e of entries) {
      await trx.executeQuery(
        e.rowid !== undefined
          ? CompiledQuery.raw('insert into decision_search (rowid, body) values (?, ?)', [e.rowid, e.text])
          : CompiledQuery.raw(
              'insert into decision_search (rowid, body) select rowid, ? from decisions where id = ?',
              [e.text, e.id],
            ),
      );
    }
  };
}

/** The words a query looks for, at most once each. */
export function queryWords(query: string): string[] {
  return [...new Set(searchWords(query))];
}

/** SQL: the decision's content holds every word of `query`, as the index normalised them. */
export function searchCondition(engine: 'sqlite' | 'postgres', query: string): RawBuilder<SqlBool> {
  const words = queryWords(query);
  if (engine === 'postgres') {
    return sql<SqlBool>`decisions.id in (select decision_id from decision_search
      where body @@ plainto_tsquery('simple', ${words.join(' ')}))`;
  }
  // each word a quoted FTS5 string: no word can be read as an operator (AND, NEAR, *, column filters)
  const match = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
  return sql<SqlBool>`decisions.rowid in (select rowid from decision_search where decision_search match ${match})`;
}

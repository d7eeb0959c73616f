import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { decisionText } from '../../search/text.ts';

/**
 * Full-text search over decision content (issue 18, item 9), and the API key that made each decision.
 *
 * The index holds the content's words as `search/text.ts` segments and normalises them (so Japanese, which has no
 * spaces, is searchable by word), written by the decision store in the transaction that inserts the decision. It
 * never holds the content itself: SQLite has a contentless FTS5 table keyed by the decision's rowid (with
 * secure-delete, so a deleted entry's words leave the index at once), PostgreSQL a tsvector per decision with a GIN
 * index. Triggers keep it right whatever changes decisions: a deleted decision (VERDICT_DECISION_RETENTION) and a
 * decision whose content changed (the only change to content is redaction, by VERDICT_CONTENT_RETENTION) leave it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on the evolving schema types.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.alterTable('decisions').addColumn('key_id', 'text').execute();
  await db.schema
    .createIndex('decisions_account_key')
    .on('decisions')
    .columns(['account_id', 'key_id', 'id'])
    .execute();
  if (postgres) {
    await sql`create table decision_search (
      decision_id text primary key references decisions (id) on delete cascade,
      body tsvector not null)`.execute(db);
    await sql`create index decision_search_body on decision_search using gin (body)`.execute(db);
    await sql`create function decision_search_forget() returns trigger language plpgsql as $$
      begin delete from decision_search where decision_id = old.id; return null; end $$`.execute(db);
    await sql`create trigger decision_search_redact after update of content on decisions for each row
      when (old.content is distinct from new.content) execute function decision_search_forget()`.execute(db);
  } else {
    await sql`create virtual table decision_search using fts5(body, content='', contentless_delete=1,
      tokenize='unicode61 remove_diacritics 2')`.execute(db);
    await sql`insert into decision_search (decision_search, rank) values ('secure-delete', 1)`.execute(db);
    await sql`create trigger decision_search_delete after delete on decisions begin
      delete from decision_search where rowid = old.rowid; end`.execute(db);
    await sql`create trigger decision_search_redact after update of content on decisions
      when new.content is not old.content begin
      delete from decision_search where rowid = old.rowid; end`.execute(db);
  }
  await backfill(db, postgres);
}

/** Indexes the decisions stored before this migration, a bounded batch at a time. */
// biome-ignore lint/suspicious/noExplicitAny: see up().
async function backfill(db: Kysely<any>, postgres: boolean): Promise<void> {
  let after = '';
  for (;;) {
    const rows: { id: string; content: string; content_type: string }[] = await db
      .selectFrom('decisions')
      .select(['id', 'content', 'content_type'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(500)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      const text = decisionText(row.content_type, row.content);
      if (!text) continue;
      if (postgres)
        await sql`insert into decision_search (decision_id, body)
          values (${row.id}, to_tsvector('simple', ${text}))`.execute(db);
      else
        await sql`insert into decision_search (rowid, body)
          select rowid, ${text} from decisions where id = ${row.id}`.execute(db);
    }
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see up().
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger if exists decision_search_redact on decisions`.execute(db);
    await sql`drop function if exists decision_search_forget()`.execute(db);
    await sql`drop table if exists decision_search`.execute(db);
  } else {
    await sql`drop trigger if exists decision_search_redact`.execute(db);
    await sql`drop trigger if exists decision_search_delete`.execute(db);
    await sql`drop table if exists decision_search`.execute(db);
  }
  await db.schema.dropIndex('decisions_account_key').ifExists().execute();
  await db.schema.alterTable('decisions').dropColumn('key_id').execute();
}

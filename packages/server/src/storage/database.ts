import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type Pg from 'pg';
import type { Config } from '../config.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  engine: 'sqlite' | 'postgres';
  /**
   * SQLite only: a number that changes whenever another connection (another process: the CLI, a second instance)
   * commits to the database; this connection's own writes leave it unchanged. Cheap enough to read per request.
   */
  externalVersion?: () => number;
  close(): Promise<void>;
}

const requireCjs = createRequire(import.meta.url);

/** pg, loaded by the first PostgreSQL database opened: a SQLite start (and every CLI call on it) never needs it. */
function loadPg(): typeof Pg {
  const pg = requireCjs('pg') as typeof Pg;
  // PostgreSQL returns BIGINT (int8) as strings by default; our bigints are quotas far below 2^53.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  return pg;
}

/** Opens the configured database: SQLite (WAL) in the data directory, or PostgreSQL when DATABASE_URL is set. */
export function openDatabase(
  database: Config['database'],
  /** Tests: a smaller log bound (frames) than the checkpointer's 64 MB default. */
  options: { maxWalFrames?: number } = {},
): DatabaseHandle {
  if (database.kind === 'postgres') {
    const pool = new (loadPg().Pool)({
      connectionString: database.url,
      max: 10,
      connectionTimeoutMillis: 5000,
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(path.dirname(database.file), { recursive: true });
  const sqlite = new SQLite(database.file);
  // A new database gets 16 KB pages (an existing one keeps its own): a decision row is ~2 KB, so 4 KB pages held one
  // row each and wasted half of every page; 16 KB pages hold seven. Set before anything creates the file's schema.
  sqlite.pragma('page_size = 16384');
  // WAL: readers never block the writer. synchronous=NORMAL keeps every committed transaction across a crash or
  // kill -9 of the process (the WAL is written before commit returns); only an OS crash or power loss could
  // lose the last transactions, which FULL would prevent at the price of an fsync per commit.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // a log that the checkpoints have caught up with is cut back to this size when it restarts
  sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  const checkpointer = new WalCheckpointer(sqlite, database.file, 250, options.maxWalFrames);
  checkpointer.start();
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  return {
    db,
    engine: 'sqlite',
    externalVersion: () => dataVersion.get() as number,
    close: async () => {
      await checkpointer.stop();
      await db.destroy(); // the last connection to close checkpoints what is left
    },
  };
}

/**
 * Kysely prepares every query anew; better-sqlite3 statements are reusable, and preparing is a large share of a
 * small query's cost. Cache statements by SQL text (the set of distinct queries is small and fixed).
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return Object.assign(Object.create(sqlite) as SQLite.Database, {
    prepare(source: string) {
      let statement = cache.get(source);
      if (!statement) {
        statement = prepare(source);
        if (cache.size < 1000) cache.set(source, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  });
}

/** Runs every pending migration. Safe to call at every start and from several processes on PostgreSQL. */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  // On PostgreSQL, keep Kysely's bookkeeping tables in the connection's current schema, so that databases that
  // share a server but not a schema (search_path) never see each other's migration state.
  const schema = handle.engine === 'postgres' ? await currentSchema(handle.db) : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrations },
    // Migrations are written on parallel branches and land in any order; each one is independent of the others'
    // numbers, so a database that already ran a higher number still runs a lower one that landed later.
    allowUnorderedMigrations: true,
    ...(schema && { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function currentSchema(db: Db): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}

export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Config } from '../../src/config.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL;

export const engines: Engine[] = ['sqlite', ...(TEST_DATABASE_URL ? (['postgres'] as const) : [])];
export type Engine = 'sqlite' | 'postgres';

if (!TEST_DATABASE_URL && !process.env.VERDICT_QUIET_SKIPS) {
  process.stderr.write('[verdict tests] TEST_DATABASE_URL is not set: PostgreSQL variants are skipped\n');
}

export function tempDir(prefix = 'verdict-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A fresh database for one test: a SQLite file in a temp dir, or a new PostgreSQL schema. */
export async function freshDatabase(
  engine: Engine,
  dataDir: string,
): Promise<{ database: Config['database']; drop(): Promise<void> }> {
  if (engine === 'sqlite') {
    return { database: { kind: 'sqlite', file: path.join(dataDir, 'verdict.db') }, drop: async () => {} };
  }
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `${process.env.VERDICT_TEST_SCHEMA_PREFIX ?? 't_'}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    database: { kind: 'postgres', url: url.toString() },
    // Dropped after the whole run by test/global-setup.ts: dropping a schema while other files run races with
    // their catalogue queries.
    drop: async () => {},
  };
}

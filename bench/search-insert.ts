// In-process cost of the full-text index on the insert path (issue 18, item 9): DecisionStore.save of ~200-character
// texts (each different) in commit groups of 50, with and without the search side write, alternated in one process.
//   node --import tsx bench/search-insert.ts   (BENCH_DATABASE_URL: also on PostgreSQL, in a fresh schema)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DecisionStore } from '../packages/server/src/domain/decisions.ts';
import { newId } from '../packages/server/src/domain/ids.ts';
import { SearchIndex } from '../packages/server/src/search/search-index.ts';
import { migrateToLatest, openDatabase } from '../packages/server/src/storage/database.ts';
import type { DecisionRecord } from '../packages/server/src/storage/repositories/decisions.ts';

const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. ' +
  'Can a moderator please lock it? Some replies are rude and a couple are outright insults to other users';
const record = (i: number): DecisionRecord => ({
  decisionId: newId('dec'),
  accountId: 'acc_bench',
  keyId: 'key_bench',
  content: `${SAMPLE} #${i}`,
  contentType: 'text',
  safe: true,
  flagged: false,
  action: 'allow',
  categories: [],
  rawScores: {},
  evaluated: [],
  policyId: 'default',
  policyVersion: 1,
  provider: 'local',
  modelVersion: 'm',
  latency: 1,
  cost: 0,
  language: 'en',
  metadata: null,
  requestId: null,
  replayOf: null,
  request: { body: { content: `${SAMPLE} #${i}` } },
  results: null,
  timestamp: new Date().toISOString(),
  media: null,
  replayData: null,
});

async function run(kind: 'sqlite' | 'postgres', url?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-insert-'));
  const handle = openDatabase(
    kind === 'sqlite' ? { kind, file: path.join(dir, 'v.db') } : ({ kind, url: url! } as never),
  );
  await migrateToLatest(handle);
  const plain = new DecisionStore(handle.db, handle.engine);
  const indexed = new DecisionStore(handle.db, handle.engine);
  indexed.addSideWrite(new SearchIndex(handle.engine).sideWrite);
  const N = 10_000;
  const GROUP = 50;
  let n = 0;
  const time = async (store: DecisionStore) => {
    const started = performance.now();
    for (let i = 0; i < N; i += GROUP) {
      await Promise.all(Array.from({ length: GROUP }, () => store.save([record(n++)])));
    }
    return (performance.now() - started) / N;
  };
  const results = { plain: [] as number[], indexed: [] as number[] };
  for (let round = 0; round < 3; round++) {
    results.plain.push(await time(plain));
    results.indexed.push(await time(indexed));
  }
  const best = (xs: number[]) => Math.min(...xs);
  console.log(
    `${kind}: ${N} decisions ×3 rounds each, commit groups of ${GROUP}: without index ${(best(results.plain) * 1000).toFixed(1)} µs/decision, ` +
      `with index ${(best(results.indexed) * 1000).toFixed(1)} µs/decision (best round; all: ${results.plain.map((x) => (x * 1000).toFixed(0))} vs ${results.indexed.map((x) => (x * 1000).toFixed(0))})`,
  );
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

await run('sqlite');
const pgUrl = process.env.BENCH_DATABASE_URL;
if (pgUrl) {
  const schema = `bench_insert_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const url = new URL(pgUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    await run('postgres', url.toString());
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
}

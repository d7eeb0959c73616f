// Backtest speed: the compiled service (npm start's code, SQLite) stores N decisions of varied texts through the
// batch endpoint (real model scores), then backtests a candidate policy over them, as a background job (N > 5,000)
// polled until done. Baseline, in the same run: a plain scan of the same rows straight from the database file
// (SELECT of the columns a backtest reads, each JSON column parsed), the least any backtest must do.
// Target (issue 18): 10,000 decisions in under 10 s. Run by hand:
//   node --import tsx bench/backtest.ts [decisions]
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { SERVICE, startServer } from './lib/service.ts';

const n = Number(process.argv[2] ?? 10_000);
const KEY = 'vk_bench_key_000000000000000000';
const LIVE = `name: Bench
categories:
  toxicity: { threshold: 0.8, action: flag }
  harassment: { threshold: 0.7, action: block }
  hate: { threshold: 0.6, action: block }
  profanity: { threshold: 0.8, action: warn }
  spam: { threshold: 0.9, action: warn }
`;
const CANDIDATE = `name: Bench candidate
categories:
  toxicity: { threshold: 0.6, action: block }
  harassment: { threshold: 0.5, action: block }
  hate: { threshold: 0.5, action: block }
  profanity: { threshold: 0.6, action: flag }
  spam: { threshold: 0.7, action: flag }
`;
const WORDS = [
  'great',
  'thanks',
  'idiot',
  'stupid',
  'buy now',
  'cheap pills',
  'love this',
  'hate you',
  'shut up',
  'free money',
  'what a nice day',
  'you are trash',
  'click here',
  'awesome work',
  'damn',
  'kill it',
];
const text = (i: number) =>
  `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}, comment number ${i} ${WORDS[(i * 13) % WORDS.length]}`;

const server = await startServer(SERVICE, {
  VERDICT_BOOTSTRAP_KEY: KEY,
  VERDICT_IMAGE_PRELOAD: 'false',
  VERDICT_RATE_LIMITS: 'false',
  LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  REDIS_URL: '',
});
const pool = new Pool(server.origin, { connections: 8 });
async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await pool.request({
    path,
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await res.body.json()) as Record<string, any>;
  if (res.statusCode >= 300 && res.statusCode !== 202)
    throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

try {
  await call('POST', '/v1/policies', { policyId: 'bench', yamlContent: LIVE });
  const loadStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < n) {
        const from = next;
        next += 100;
        const items = Array.from({ length: Math.min(100, n - from) }, (_, k) => ({
          id: String(from + k),
          content: text(from + k),
        }));
        await call('POST', '/v1/batch/check', { policyId: 'bench', items });
      }
    }),
  );
  const loadMs = performance.now() - loadStart;

  // baseline: the same rows read and parsed straight from the database file
  const db = new Database(`${server.dataDir}/verdict.db`, { readonly: true });
  const scanStart = performance.now();
  let scanned = 0;
  for (const row of db
    .prepare(
      `select id, action, categories, raw_scores, evaluated, replay_data, results, bank_match
       from decisions where policy_id = 'bench' and replay_of is null order by id`,
    )
    .iterate() as Iterable<Record<string, string | null>>) {
    for (const c of ['categories', 'raw_scores', 'evaluated', 'replay_data', 'results', 'bank_match'])
      if (row[c] !== null) JSON.parse(row[c]!);
    scanned++;
  }
  const scanMs = performance.now() - scanStart;
  db.close();

  const start = performance.now();
  let backtest = await call('POST', '/v1/policies/bench/backtest', { yamlContent: CANDIDATE, limit: n });
  while (backtest.status === 'queued' || backtest.status === 'running') {
    await new Promise((r) => setTimeout(r, 20));
    backtest = await call('GET', `/v1/backtests/${backtest.backtestId}`);
  }
  const backtestMs = performance.now() - start;
  if (backtest.status !== 'completed')
    throw new Error(`backtest ${backtest.status}: ${JSON.stringify(backtest.error)}`);
  const r = backtest.report;
  console.log(`stored ${n} decisions through /v1/batch/check in ${(loadMs / 1000).toFixed(1)} s`);
  console.log(
    `report: ${r.total} decisions, ${r.replayed} replayed, ${r.changed} would change, ${r.notReplayable.total} not replayable`,
  );
  console.log(
    `backtest of ${backtest.progress.total} stored decisions (background job, polled): ${(backtestMs / 1000).toFixed(2)} s ` +
      `(target < 10 s; ${(backtestMs / 10_000).toFixed(2)} of it)`,
  );
  console.log(
    `baseline, a plain scan + JSON parse of the same ${scanned} rows from the file: ${scanMs.toFixed(0)} ms; ` +
      `backtest / scan = ${(backtestMs / scanMs).toFixed(1)}`,
  );
} finally {
  await pool.close();
  await server.stop();
  server.remove();
}

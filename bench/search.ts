// Full-text search over stored decisions (issue 18, item 9): the compiled service stores N decisions (default
// 100,000; POST /v1/batch/check, 100 texts a request, words drawn from a skewed vocabulary so some are in most
// decisions and some in a few), then times, over HTTP, GET /v1/decisions?q=… against the baseline measured in the
// same run: the plain indexed list GET /v1/decisions?limit=20. Also the export of a common word's matches.
// By hand, not CI:
//   node --import tsx bench/search.ts [decisions] [queries]
// With BENCH_DATABASE_URL (a PostgreSQL server; a fresh database is created and dropped) a second run is on
// PostgreSQL.
import pg from 'pg';
import { Pool } from 'undici';
import { fmt } from './lib/load.ts';
import { SERVICE, startServer } from './lib/service.ts';

const total = Number(process.argv[2] ?? 100_000);
const queries = Number(process.argv[3] ?? 200);
const KEY = 'vk_bench_key_000000000000000000';

/** Deterministic pseudo-random numbers, so every run stores the same texts. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const rand = random(42);
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'vo', 'pe', 'zu', 'ba', 'do', 'gi', 'ho', 'ju'];
// 5,000 words; word i is drawn with probability ∝ 1/(i+1) (Zipf), so "w0" is in most texts and "w4999" in few
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => {
  let word = '';
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length];
  return word;
});
const WEIGHTS = VOCABULARY.map((_, i) => 1 / (i + 1));
const CUMULATIVE = WEIGHTS.map(
  (
    (sum) => (w) =>
      (sum += w)
  )(0),
);
const word = () => {
  const x = rand() * CUMULATIVE[CUMULATIVE.length - 1]!;
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo]!;
};
const text = () => Array.from({ length: 30 }, word).join(' ');

async function seed(pool: Pool): Promise<void> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < total) {
        const from = next;
        next += 100;
        const items = Array.from({ length: Math.min(100, total - from) }, (_, i) => ({
          id: `i${i}`,
          content: text(),
        }));
        const res = await pool.request({
          path: '/v1/batch/check',
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
          body: JSON.stringify({ policyId: 'default', items }),
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`batch at ${from}: ${res.statusCode}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`  stored ${fmt(total)} decisions in ${seconds.toFixed(0)} s (${fmt(total / seconds)}/s)`);
}

async function get(pool: Pool, path: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const res = await pool.request({ path, method: 'GET', headers: { authorization: `Bearer ${KEY}` } });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${body.slice(0, 200)}`);
  return { ms: performance.now() - started, body };
}

interface Timing {
  p50: number;
  p95: number;
  matches: string;
}

async function time(pool: Pool, path: string): Promise<Timing> {
  const ms: number[] = [];
  let body = '';
  for (let i = 0; i < queries; i++) ({ ms: ms[i]!, body } = await get(pool, path));
  ms.sort((a, b) => a - b);
  const page = JSON.parse(body) as { decisions: unknown[]; hasMore: boolean };
  return {
    p50: ms[Math.floor(ms.length * 0.5)]!,
    p95: ms[Math.floor(ms.length * 0.95)]!,
    matches: `${page.decisions.length}${page.hasMore ? '+' : ''}`,
  };
}

async function run(
  label: string,
  env: Record<string, string>,
  afterSeed?: () => Promise<void>,
): Promise<void> {
  const server = await startServer(SERVICE, {
    VERDICT_BOOTSTRAP_KEY: KEY,
    VERDICT_IMAGE_PRELOAD: 'false',
    VERDICT_RATE_LIMITS: 'false',
    LOG_LEVEL: 'warn',
    DATABASE_URL: '',
    REDIS_URL: '',
    ...env,
  });
  const pool = new Pool(server.origin, { connections: 8 });
  try {
    console.log(`${label}:`);
    await seed(pool);
    await afterSeed?.();
    const rare = VOCABULARY[4000]!;
    const mid = VOCABULARY[200]!;
    const common = VOCABULARY[0]!;
    const rows: [string, string][] = [
      ['baseline: GET /v1/decisions?limit=20', '/v1/decisions?limit=20'],
      [`q=<rare word>`, `/v1/decisions?limit=20&q=${rare}`],
      [`q=<mid word>`, `/v1/decisions?limit=20&q=${mid}`],
      [`q=<common word>`, `/v1/decisions?limit=20&q=${common}`],
      [`q=<two mid words>`, `/v1/decisions?limit=20&q=${mid}+${VOCABULARY[201]}`],
      [`q=<mid word>&action=allow`, `/v1/decisions?limit=20&action=allow&q=${mid}`],
      [`q=<common word>, offset 5000`, `/v1/decisions?limit=20&offset=5000&q=${common}`],
    ];
    let baseline = 0;
    for (const [name, path] of rows) {
      const t = await time(pool, path);
      if (baseline === 0) baseline = t.p50;
      console.log(
        `  ${name.padEnd(36)} p50 ${t.p50.toFixed(2).padStart(8)} ms  p95 ${t.p95.toFixed(2).padStart(8)} ms  ` +
          `page ${t.matches.padStart(3)}  ×${(t.p50 / baseline).toFixed(1)} the baseline`,
      );
    }
    const exported = await get(pool, `/v1/decisions/export?q=${mid}`);
    const lines = exported.body.split('\n').length - 1;
    console.log(
      `  export q=<mid word>: ${fmt(lines)} decisions in ${exported.ms.toFixed(0)} ms ` +
        `(${fmt((lines / exported.ms) * 1000)}/s)`,
    );
  } finally {
    await pool.close();
    await server.stop();
    server.remove();
  }
}

console.log(
  `GET /v1/decisions?q=… over ${fmt(total)} stored decisions, ${queries} sequential queries each, one run`,
);
await run('SQLite', {});
const pgUrl = process.env.BENCH_DATABASE_URL;
if (pgUrl) {
  const dbName = `verdict_bench_search_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  try {
    const url = new URL(pgUrl);
    url.pathname = `/${dbName}`;
    // Right after a bulk load autovacuum may not have analysed the tables yet; without statistics the planner
    // hashes every decision of the account for a rare word (~1.6 s here). A running service is analysed.
    const analyze = async () => {
      const db = new pg.Client({ connectionString: url.toString() });
      await db.connect();
      await db.query('ANALYZE decisions; ANALYZE decision_search');
      await db.end();
    };
    await run('PostgreSQL', { DATABASE_URL: url.toString() }, analyze);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

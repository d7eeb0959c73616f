// Throughput and p99 of POST /v1/check (≈200-character texts, each different, built-in `default` policy, real
// model) against a bare Fastify route answering the same JSON body, in one run. The service runs as `npm start`
// runs it: compiled JavaScript, request logging on (to a file), rate limits on with a high per-key limit.
// Load from wrk (apt-get install wrk), 50 connections, 3 s warm-up then 10 s.
//   node --import tsx bench/check.ts [seconds] [connections]
// With BENCH_DATABASE_URL (a PostgreSQL server; a fresh database is created and dropped) and BENCH_REDIS_URL, a
// third row runs the service on PostgreSQL + Redis.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt } from './lib/load.ts';
import { cpuMs, freshDatabase, SERVICE, startServer } from './lib/service.ts';
import { hasWrk, type WrkResult, wrk } from './lib/wrk.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 50);
const KEY = 'vk_bench_key_000000000000000000';
const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. ' +
  'Can a moderator please lock it? Some replies are rude and a couple are outright insults to other users';
const bodyPrefix = `{"content":"${SAMPLE} #`;
const bodySuffix = '","policyId":"default"}';

if (!hasWrk()) {
  console.error('bench/check.ts needs wrk: apt-get install -y wrk');
  process.exit(2);
}

interface Load {
  path: string;
  bodyPrefix: string;
  bodySuffix: string;
  connections: number;
  batch?: { repeat: number; outerPrefix: string; outerSuffix: string; itemEnd: string };
}
const single: Load = { path: '/v1/check', bodyPrefix, bodySuffix, connections };
// POST /v1/batch/check of 100 items (texts as above), 8 connections
const batchOf100: Load = {
  path: '/v1/batch/check',
  bodyPrefix: `{"content":"${SAMPLE} #`,
  bodySuffix: '","id":"item-',
  connections: 8,
  batch: { repeat: 100, outerPrefix: '{"policyId":"default","items":[', outerSuffix: ']}', itemEnd: '"}' },
};

async function measure(
  name: string,
  args: string[],
  env: Record<string, string>,
  ready: string,
  load: Load = single,
) {
  const server = await startServer(args, env, { ready });
  try {
    const opts = {
      url: `${server.origin}${load.path}`,
      bodyPrefix: load.bodyPrefix,
      bodySuffix: load.bodySuffix,
      headers: { authorization: `Bearer ${KEY}` },
      connections: load.connections,
      ...(load.batch && { batch: load.batch }),
    };
    await wrk({ ...opts, seconds: 3 });
    const cpuBefore = cpuMs(server.child.pid!);
    const r = await wrk({ ...opts, seconds });
    const cpuUs = ((cpuMs(server.child.pid!) - cpuBefore) * 1000) / Math.max(1, r.requests);
    const logBytes = fs.statSync(server.logFile).size;
    console.log(
      `${name.padEnd(24)} ${fmt(r.rps).padStart(8)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}  CPU ${fmt(cpuUs, 0)} µs/req  log ${fmt(logBytes / Math.max(1, r.requests), 0)} B/req`,
    );
    return { ...r, cpuUs };
  } finally {
    await server.stop();
    server.remove();
  }
}

const service = SERVICE;
const common = {
  VERDICT_BOOTSTRAP_KEY: KEY,
  VERDICT_RATE_LIMIT_PER_MINUTE: '10000000',
  VERDICT_RATE_LIMIT_BURST_PER_SECOND: '1000000',
  VERDICT_IMAGE_PRELOAD: 'false',
  DATABASE_URL: '',
  REDIS_URL: '',
};
console.log(
  `POST /v1/check, ~200-char texts (each different), ${connections} connections, 3 s warm-up + ${seconds} s, wrk, one run`,
);
// BENCH_ROWS=sqlite,batch runs only those rows (the bare route always runs: every ratio needs it)
const rows = new Set((process.env.BENCH_ROWS ?? 'sqlite,batch,pg').split(','));
const results: Record<string, WrkResult & { cpuUs: number }> = {};
results.bare = await measure(
  'bare Fastify route',
  ['--import', 'tsx', path.join(here, 'servers/bare-fastify.ts')],
  {},
  '/',
);
if (rows.has('sqlite')) results.sqlite = await measure('verdict (SQLite)', service, common, '/readyz');
if (rows.has('batch'))
  results.batch = await measure('verdict batch×100 (SQLite)', service, common, '/readyz', batchOf100);
const pgUrl = process.env.BENCH_DATABASE_URL;
const redisUrl = process.env.BENCH_REDIS_URL;
if (pgUrl && redisUrl && rows.has('pg')) {
  const database = await freshDatabase(pgUrl, 'verdict_bench');
  try {
    results.pg = await measure(
      'verdict (PostgreSQL+Redis)',
      service,
      { ...common, DATABASE_URL: database.url, REDIS_URL: redisUrl },
      '/readyz',
    );
  } finally {
    await database.drop();
  }
}
const bare = results.bare.rps;
if (results.batch)
  console.log(
    `batches of 100 (SQLite): ${fmt(results.batch.rps * 100)} texts/s, p99 ${fmt(results.batch.p99, 1)} ms a batch  (target ≥ 20,000 texts/s)`,
  );
if (results.sqlite)
  console.log(
    `ratio verdict (SQLite) / bare: ${fmt(results.sqlite.rps / bare, 3)}  (target ≥ 0.5, p99 ≤ 5 ms); CPU per request bare / verdict: ${fmt(results.bare.cpuUs / results.sqlite.cpuUs, 3)}`,
  );
if (results.pg)
  console.log(`ratio verdict (PostgreSQL+Redis) / bare: ${fmt(results.pg.rps / bare, 3)}  (target ≥ 0.25)`);

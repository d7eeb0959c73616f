// A CPU profile of the service under /v1/check load (the load of bench/check.ts, SQLite), for finding where a
// request's time goes before optimising: writes a .cpuprofile and prints the self time per function and per module.
// With --batch, the load is bench/check.ts's POST /v1/batch/check of 100 texts instead. With --pg, the service runs
// on PostgreSQL + Redis (BENCH_DATABASE_URL, BENCH_REDIS_URL; a fresh database is created and dropped).
//   node --import tsx bench/profile-check.ts [seconds] [connections] [outDir] [--batch] [--pg]
import fs from 'node:fs';
import path from 'node:path';
import { summariseProfile } from './lib/profile.ts';
import { freshDatabase, SERVICE, startServer } from './lib/service.ts';
import { hasWrk, wrk } from './lib/wrk.ts';

const batch = process.argv.includes('--batch');
const onPostgres = process.argv.includes('--pg');
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const seconds = Number(args[0] ?? 8);
const connections = Number(args[1] ?? (batch ? 8 : 50));
const outDir = path.resolve(args[2] ?? fs.mkdtempSync('/tmp/verdict-profile-'));
const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. Can a moderator please lock it? Some replies are rude and a couple are outright insults to other users';
if (!hasWrk()) {
  console.error('bench/profile-check.ts needs wrk: apt-get install -y wrk');
  process.exit(2);
}
const KEY = 'vk_bench_key_000000000000000000';
if (onPostgres && (!process.env.BENCH_DATABASE_URL || !process.env.BENCH_REDIS_URL)) {
  console.error('--pg needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
  process.exit(2);
}
const database = onPostgres ? await freshDatabase(process.env.BENCH_DATABASE_URL!, 'verdict_profile') : null;
const server = await startServer(
  ['--cpu-prof', `--cpu-prof-dir=${outDir}`, ...SERVICE],
  {
    VERDICT_BOOTSTRAP_KEY: KEY,
    VERDICT_RATE_LIMIT_PER_MINUTE: '10000000',
    VERDICT_RATE_LIMIT_BURST_PER_SECOND: '1000000',
    VERDICT_IMAGE_PRELOAD: 'false',
    DATABASE_URL: database?.url ?? '',
    REDIS_URL: onPostgres ? process.env.BENCH_REDIS_URL! : '',
  },
  { ready: '/readyz' },
);
const load = {
  url: `${server.origin}${batch ? '/v1/batch/check' : '/v1/check'}`,
  bodyPrefix: `{"content":"${SAMPLE} #`,
  bodySuffix: batch ? '","id":"item-' : '","policyId":"default"}',
  headers: { authorization: `Bearer ${KEY}` },
  connections,
  ...(batch && {
    batch: { repeat: 100, outerPrefix: '{"policyId":"default","items":[', outerSuffix: ']}', itemEnd: '"}' },
  }),
};
// a warm-up first, so that the profile's load window sees JIT-compiled code
await wrk({ ...load, seconds: 3 });
const r = await wrk({ ...load, seconds });
await server.stop();
server.remove();
await database?.drop();
console.log(
  `${Math.round(r.rps)} ${batch ? 'batches of 100' : 'requests'}/s, p99 ${r.p99.toFixed(1)} ms under the profiler`,
);
const file = fs.readdirSync(outDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written to ${outDir}`);
// the load window only: start-up (module loading, schema compilation) is not what a request costs
summariseProfile(path.join(outDir, file), 25, seconds * 1000);

// npm run chaos -- [--kills 20] [--db sqlite|postgres] [--seed N] [--concurrency 8]
// Kills the compiled service with SIGKILL --kills times under a load of checks and asynchronous batches (events to a
// local HTTPS receiver), restarting it each time, then proves nothing was lost (exit 1 otherwise). PostgreSQL +
// Redis: --database-url (default postgres://postgres@127.0.0.1:5432/wt_chaos, a fresh schema of it) and
// --redis-url (default redis://127.0.0.1:6379/9, flushed).
import { parseFlags } from './lib/args.ts';
import { runChaos } from './lib/chaos.ts';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } from './lib/service.ts';

const flags = parseFlags(process.argv.slice(2), {
  kills: 20,
  db: 'sqlite',
  seed: Math.floor(Math.random() * 2 ** 31),
  concurrency: 8,
  minUpMs: 1000,
  maxUpMs: 4000,
  settleSeconds: 180,
  databaseUrl: DEFAULT_DATABASE_URL,
  redisUrl: DEFAULT_REDIS_URL,
});
if (flags.db !== 'sqlite' && flags.db !== 'postgres') throw new Error('--db is sqlite or postgres');
const log = (line: string) => process.stdout.write(`${line}\n`);
log(`chaos: ${flags.kills} kills, ${flags.db}, seed ${flags.seed}`);
const s = await runChaos({
  db: flags.db,
  databaseUrl: flags.databaseUrl,
  redisUrl: flags.redisUrl,
  kills: flags.kills,
  seed: flags.seed,
  minUpMs: flags.minUpMs,
  maxUpMs: flags.maxUpMs,
  concurrency: flags.concurrency,
  settleMs: flags.settleSeconds * 1000,
  progress: log,
});
for (const [what, list] of [
  ['decision not found', s.missingDecisions],
  ['batch not completed', s.incompleteBatches],
  ['event never delivered', s.missingEvents],
  ['event delivered under several IDs', s.splitEvents],
] as const) {
  for (const item of list.slice(0, 10)) log(`LOST ${what}: ${item}`);
  if (list.length > 10) log(`… and ${list.length - 10} more (${what})`);
}
if (s.lost > 0) log(`data kept: ${s.dataDir}${s.databaseUrl ? ` and ${s.databaseUrl}` : ''}`);
log(
  `chaos ${s.lost === 0 ? 'PASS' : 'FAIL'}: ${s.kills} kills (${s.db}) in ${s.seconds.toFixed(0)} s: ${s.checksOk} checks ` +
    `answered 200, ${s.batchesAccepted} batches accepted, ${s.deliveries} deliveries received, ${s.refused} requests ` +
    `refused while down; lost: ${s.missingDecisions.length} decisions, ${s.incompleteBatches.length} batches, ` +
    `${s.missingEvents.length} events, ${s.splitEvents.length} events under two IDs → ${s.lost} lost`,
);
process.exit(s.lost === 0 ? 0 : 1);

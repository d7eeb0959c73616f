// npm run fuzz -- [--requests 20000] [--seed N] [--concurrency 16] [--db sqlite|postgres] [--replay N]
// Starts the compiled service on a fresh store, sends hostile variants of every operation of its /openapi.json,
// and fails (exit 1) on any 5xx, any request unanswered within the time limit, a service that is down at the end,
// or an RSS over --max-rss-mb.
import { parseFlags } from './lib/args.ts';
import { runFuzz } from './lib/fuzz.ts';
import { prepareStorage, startVerdict } from './lib/service.ts';

const flags = parseFlags(process.argv.slice(2), {
  requests: 20_000,
  seed: Math.floor(Math.random() * 2 ** 31),
  concurrency: 16,
  timeoutMs: 20_000,
  db: 'sqlite',
  replay: -1,
  maxRssMb: 1536,
});
if (flags.db !== 'sqlite' && flags.db !== 'postgres') throw new Error('--db is sqlite or postgres');
const storage = await prepareStorage({ db: flags.db });
const server = await startVerdict({ ...storage.env, VERDICT_TEXT_WARMUP: 'false' });
const log = (line: string) => process.stdout.write(`${line}\n`);
log(`fuzz: seed ${flags.seed}, ${flags.requests} requests, ${flags.db}, service pid ${server.child.pid}`);
let summary: Awaited<ReturnType<typeof runFuzz>>;
try {
  summary = await runFuzz({
    origin: server.origin,
    pid: server.child.pid,
    requests: flags.requests,
    seed: flags.seed,
    concurrency: flags.concurrency,
    timeoutMs: flags.timeoutMs,
    replay: flags.replay >= 0 ? flags.replay : undefined,
    progress: log,
  });
} finally {
  await server.stop();
  await storage.cleanup();
}
const rssOk = summary.rssPeakMb === null || summary.rssPeakMb <= flags.maxRssMb;
const ok = summary.serverErrors === 0 && summary.unanswered === 0 && summary.serviceUp && rssOk;
if (ok) server.remove();
else log(`service log kept: ${server.logFile}`);
log(`statuses: ${JSON.stringify(summary.byStatus)}`);
const rss = (n: number | null) => (n === null ? '?' : n.toFixed(0));
log(
  `fuzz ${ok ? 'PASS' : 'FAIL'}: ${summary.requests} requests over ${summary.operations} operations in ` +
    `${summary.seconds.toFixed(0)} s (seed ${summary.seed}, ${flags.db}): ${summary.serverErrors} 5xx, ` +
    `${summary.unanswered} unanswered, service ${summary.serviceUp ? 'up' : 'DOWN'}, RSS ` +
    `${rss(summary.rssStartMb)} → ${rss(summary.rssEndMb)} MB (peak ${rss(summary.rssPeakMb)}, limit ${flags.maxRssMb})`,
);
process.exit(ok ? 0 : 1);

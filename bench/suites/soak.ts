// npm run soak -- [--minutes 30] [--rate 300]
// POST /v1/check at a fixed rate (open loop) on the compiled service with SQLite, 200-character texts, no webhook;
// a line per minute (p50/p99, RSS, database and WAL size), then bytes per decision and the p99 of the last 5
// minutes against the first 5 (shorter runs: the last and first halves, up to 5 minutes each). Fails (exit 1) when
// that ratio is over --max-p99-ratio, bytes per decision over --max-bytes-per-decision, or any request failed.
import { parseFlags } from './lib/args.ts';
import { runSoak } from './lib/soak.ts';

const flags = parseFlags(process.argv.slice(2), {
  minutes: 30,
  rate: 300,
  maxInFlight: 2000,
  maxP99Ratio: 2,
  maxBytesPerDecision: 2048,
});
const log = (line: string) => process.stdout.write(`${line}\n`);
log(`soak: ${flags.minutes} minutes at ${flags.rate} req/s (SQLite, 200-character texts, no webhook)`);
const s = await runSoak({
  minutes: flags.minutes,
  rate: flags.rate,
  maxInFlight: flags.maxInFlight,
  progress: log,
});
const ok =
  s.errors === 0 &&
  s.dropped === 0 &&
  s.p99Ratio <= flags.maxP99Ratio &&
  s.bytesPerDecision <= flags.maxBytesPerDecision;
log(
  `soak ${ok ? 'PASS' : 'FAIL'}: ${flags.minutes} min at ${flags.rate} req/s: ${s.decisions} decisions, ${s.errors} ` +
    `errors, ${s.dropped} dropped; p99 last ${s.windowMinutes} min ${s.p99Last.toFixed(1)} ms / first ` +
    `${s.windowMinutes} min ${s.p99First.toFixed(1)} ms = ${s.p99Ratio.toFixed(2)} (max ${flags.maxP99Ratio}); ` +
    `${(s.dbGrowthBytes / 1048576).toFixed(1)} MB database growth = ${s.bytesPerDecision.toFixed(0)} bytes per ` +
    `decision (max ${flags.maxBytesPerDecision})`,
);
process.exit(ok ? 0 : 1);

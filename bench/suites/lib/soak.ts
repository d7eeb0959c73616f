// The soak run: POST /v1/check at a fixed rate (open loop: requests are sent on schedule whether or not earlier
// ones have been answered, and latency counts from the scheduled time, so a stall shows in p99 instead of slowing
// the load), 200-character texts, no webhook subscribed; a line per minute with p50/p99, RSS, database and WAL size.
import path from 'node:path';
import { Pool } from 'undici';
import { fileBytes, quantile, rssMb } from './probe.ts';
import { ADMIN_KEY, createPolicy, startVerdict } from './service.ts';

export interface SoakOptions {
  minutes: number;
  rate: number;
  /** Requests in flight beyond this are not sent, and counted as dropped (the load generator's own bound). */
  maxInFlight: number;
  progress?: (line: string) => void;
}

export interface SoakMinute {
  minute: number;
  sent: number;
  ok: number;
  errors: number;
  p50: number;
  p99: number;
  rssMb: number | null;
  dbBytes: number;
  walBytes: number;
}

export interface SoakSummary {
  minutes: SoakMinute[];
  decisions: number;
  errors: number;
  dropped: number;
  /** Database growth (the file after the service checkpointed and closed, minus database + WAL at the start). */
  dbGrowthBytes: number;
  bytesPerDecision: number;
  windowMinutes: number;
  p99First: number;
  p99Last: number;
  p99Ratio: number;
}

const WORDS = (
  'the a match team goal season player coach fans stadium weather rain sunny weekend city train late early ' +
  'review film book music album concert ticket price shop order delivery parcel great terrible fine okay ' +
  'really quite very not just also maybe today tomorrow yesterday friend family neighbour street park'
).split(' ');

/** A distinct text of exactly 200 characters (the request number is in it, so no two are the same). */
export function text200(n: number): string {
  let s = `#${n} `;
  let i = n;
  while (s.length < 200) {
    i = (i * 1103515245 + 12345) >>> 0;
    s += `${WORDS[i % WORDS.length]} `;
  }
  return s.slice(0, 199) + '.';
}

export async function runSoak(options: SoakOptions): Promise<SoakSummary> {
  const say = options.progress ?? (() => {});
  const server = await startVerdict({ DATABASE_URL: '', REDIS_URL: '' });
  const db = path.join(server.dataDir, 'verdict.db');
  const pid = server.child.pid;
  let stopped = false;
  const pool = new Pool(server.origin, {
    connections: 64,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  try {
    await createPolicy(server.origin, 'soak');
    const startBytes = fileBytes(db) + fileBytes(`${db}-wal`);
    const minutes: SoakMinute[] = [];
    let latencies: number[] = [];
    const perMinute: number[][] = [];
    let sent = 0;
    let ok = 0;
    let errors = 0;
    let dropped = 0;
    let inFlight = 0;
    let decisions = 0;
    let totalErrors = 0;
    const fire = (n: number, scheduled: number) => {
      if (inFlight >= options.maxInFlight) {
        dropped++;
        return;
      }
      inFlight++;
      sent++;
      pool
        .request({
          path: '/v1/check',
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ content: text200(n), policyId: 'soak' }),
        })
        .then(async (res) => {
          await res.body.text();
          return res.statusCode;
        })
        .catch(() => 0)
        .then((status) => {
          inFlight--;
          // counted in the minute it was answered in (a stall that crosses a minute still shows)
          latencies.push(performance.now() - scheduled);
          if (status === 200) ok++;
          else errors++;
        });
    };

    const t0 = performance.now();
    const total = options.minutes * 60 * options.rate;
    let n = 0;
    let nextReport = t0 + 60_000;
    while (n < total) {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - t0) / 1000) * options.rate));
      for (; n < due; n++) fire(n, t0 + (n / options.rate) * 1000);
      if (now >= nextReport || n >= total) {
        if (n >= total) while (inFlight > 0 && performance.now() - now < 30_000) await sleep(20);
        latencies.sort((a, b) => a - b);
        perMinute.push(latencies);
        const m: SoakMinute = {
          minute: minutes.length + 1,
          sent,
          ok,
          errors,
          p50: quantile(latencies, 0.5),
          p99: quantile(latencies, 0.99),
          rssMb: rssMb(pid),
          dbBytes: fileBytes(db),
          walBytes: fileBytes(`${db}-wal`),
        };
        minutes.push(m);
        decisions += ok;
        totalErrors += errors;
        say(
          `minute ${m.minute}: ${m.sent} sent, ${m.ok} ok, ${m.errors} errors, p50 ${m.p50.toFixed(1)} ms, ` +
            `p99 ${m.p99.toFixed(1)} ms, RSS ${m.rssMb?.toFixed(0) ?? '?'} MB, DB ${(m.dbBytes / 1048576).toFixed(1)} MB, ` +
            `WAL ${(m.walBytes / 1048576).toFixed(1)} MB`,
        );
        latencies = [];
        sent = ok = errors = 0;
        nextReport += 60_000;
      }
      await sleep(5);
    }
    await pool.close();
    stopped = true;
    await server.stop(); // SIGTERM: the service checkpoints the WAL into the database and closes
    const dbGrowthBytes = fileBytes(db) + fileBytes(`${db}-wal`) - startBytes;
    const window = Math.max(1, Math.min(5, Math.floor(minutes.length / 2)));
    const p99Of = (lists: number[][]) =>
      quantile(
        lists.flat().sort((a, b) => a - b),
        0.99,
      );
    const p99First = p99Of(perMinute.slice(0, window));
    const p99Last = p99Of(perMinute.slice(-window));
    return {
      minutes,
      decisions,
      errors: totalErrors,
      dropped,
      dbGrowthBytes,
      bytesPerDecision: decisions > 0 ? dbGrowthBytes / decisions : 0,
      windowMinutes: window,
      p99First,
      p99Last,
      p99Ratio: p99First > 0 ? p99Last / p99First : 0,
    };
  } finally {
    await pool.destroy().catch(() => {});
    if (!stopped) await server.stop();
    server.remove();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

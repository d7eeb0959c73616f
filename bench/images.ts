/**
 * Image checks: images per second through POST /v1/check (a real listening server, concurrent keep-alive clients)
 * against the raw image model pool's own throughput on the same images, in one run, with every core busy; and the
 * server's event-loop delay meanwhile (the pool must keep inference off the event loop).
 *   node --import tsx bench/images.ts [seconds] [connections]
 * Targets: HTTP ≥ 80 % of raw throughput; p99 event-loop delay < 20 ms.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../packages/server/src/config.ts';
import { startServer } from '../packages/server/src/server.ts';
import { makePhotos } from './lib/images.ts';
import { fmt } from './lib/load.ts';

const seconds = Number(process.argv[2] ?? 15);
const connections = Number(process.argv[3] ?? 16);
const KEY = 'vk_bench_key_000000000000000000';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-images-'));
const { config, secrets } = loadConfig({
  ...process.env,
  // PORT=0 is refused by the config (the public URL must name the port); any free port is taken below
  PORT: '8080',
  VERDICT_DATA_DIR: dataDir,
  VERDICT_BOOTSTRAP_KEY: KEY,
  LOG_LEVEL: 'silent',
});
const server = await startServer({ ...config, port: 0 }, secrets, { logger: false });
const pool = server.ctx.imageModel!;
const loadStarted = performance.now();
await pool.start();
const loadMs = performance.now() - loadStarted;
const images = await makePhotos(16, { rect: true });
const bodies = images.map((img) =>
  JSON.stringify({ content: img.toString('base64'), contentType: 'image', policyId: 'default' }),
);

/** Keeps `concurrency` classifications in flight for `secs` seconds; returns images per second. */
async function raw(secs: number, concurrency: number): Promise<number> {
  let done = 0;
  let next = 0;
  const deadline = performance.now() + secs * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await pool.classify(images[next++ % images.length]!);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/**
 * HTTP clients run in their own thread, so that building requests and reading responses does not count against
 * the server's event loop, which is what we measure.
 */
function http(
  secs: number,
): Promise<{ rps: number; errors: number; p50: number; p99: number; requests: number }> {
  const undiciPath = createRequire(import.meta.url).resolve('undici');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    // These clients stand in for remote ones: lower their priority so they do not take the server's event loop
    // thread's turn on a shared core (on Linux the nice value is per thread).
    try { require('node:os').setPriority(10); } catch {}
    const { Pool } = require(workerData.undiciPath);
    (async () => {
      const { origin, bodies, key, connections, seconds } = workerData;
      const pool = new Pool(origin, { connections, pipelining: 1 });
      const latencies = [];
      let errors = 0, issued = 0;
      const deadline = performance.now() + seconds * 1000;
      const started = performance.now();
      await Promise.all(Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          const body = bodies[issued++ % bodies.length];
          const t0 = performance.now();
          try {
            const res = await pool.request({ path: '/v1/check', method: 'POST', body,
              headers: { 'content-type': 'application/json', authorization: 'Bearer ' + key } });
            const text = await res.body.text();
            if (res.statusCode !== 200) { errors++; if (errors < 3) console.error(res.statusCode, text.slice(0, 200)); }
          } catch (e) { errors++; }
          latencies.push(performance.now() - t0);
        }
      }));
      const secs = (performance.now() - started) / 1000;
      await pool.close();
      latencies.sort((a, b) => a - b);
      const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      parentPort.postMessage({ rps: (latencies.length - errors) / secs, errors, p50: at(0.5), p99: at(0.99), requests: latencies.length });
    })();
  `;
  const worker = new Worker(code, {
    eval: true,
    workerData: { undiciPath, origin: server.url, bodies, key: KEY, connections, seconds: secs },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

const concurrency = pool.size * 4;
const rounds = 3;
// A fresh monitorEventLoopDelay per phase and round: one re-enabled after a pause would count the pause as a delay.
interface LoopStats {
  p50: number;
  p99: number;
  max: number;
  /** Event-loop utilization: the share of the time the main thread was busy running JavaScript or I/O callbacks. */
  elu: number;
}
// The histogram records the interval between its timer's ticks, i.e. the resolution plus the delay (an idle loop
// reads ≈ 5 ms at p50); we subtract the resolution so the numbers are the delay itself.
const RESOLUTION_MS = 5;
const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
const sample = async <T>(into: LoopStats[], run: () => Promise<T>): Promise<T> => {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const elu = performance.eventLoopUtilization();
  h.enable();
  try {
    return await run();
  } finally {
    h.disable();
    into.push({
      p50: delay(h.percentile(50)),
      p99: delay(h.percentile(99)),
      max: delay(h.max),
      elu: performance.eventLoopUtilization(elu).utilization,
    });
  }
};
/** The worst round of each statistic. */
const worst = (stats: LoopStats[]): LoopStats => ({
  p50: Math.max(...stats.map((x) => x.p50)),
  p99: Math.max(...stats.map((x) => x.p99)),
  max: Math.max(...stats.map((x) => x.max)),
  elu: Math.max(...stats.map((x) => x.elu)),
});
const loop: LoopStats[] = [];
const rawLoopH: LoopStats[] = [];

// The machine's own noise floor: the event loop of this process while it does nothing at all.
const idleStats: LoopStats[] = [];
await sample(idleStats, () => new Promise((r) => setTimeout(r, 3000)));
const idle = worst(idleStats);

await raw(2, concurrency); // warm-up
await http(2);
// Alternate the phases so that load from elsewhere on the machine affects both alike.
let rawImages = 0;
let rawSeconds = 0;
let httpImages = 0;
let httpSeconds = 0;
let httpRequests = 0;
let httpErrors = 0;
const latencyP50: number[] = [];
const latencyP99: number[] = [];
const perRound: string[] = [];
for (let r = 0; r < rounds; r++) {
  const secs = seconds / rounds;
  const rawRound = await sample(rawLoopH, () => raw(secs, concurrency));
  rawImages += rawRound * secs;
  rawSeconds += secs;
  const h = await sample(loop, () => http(secs));
  httpImages += h.rps * secs;
  httpSeconds += secs;
  httpRequests += h.requests;
  httpErrors += h.errors;
  latencyP50.push(h.p50);
  latencyP99.push(h.p99);
  perRound.push(`${fmt(rawRound, 1)} vs ${fmt(h.rps, 1)}`);
}
const rawRate = rawImages / rawSeconds;
const rawLoop = worst(rawLoopH);
const httpLoop = worst(loop);
const httpResult = {
  rps: httpImages / httpSeconds,
  errors: httpErrors,
  requests: httpRequests,
  p50: Math.max(...latencyP50),
  p99: Math.max(...latencyP99),
};

const ratio = httpResult.rps / rawRate;
const avgKb = images.reduce((a, b) => a + b.length, 0) / images.length / 1024;
console.log(
  `Image checks: ${images.length} distinct 640×480 JPEGs (avg ${fmt(avgKb)} KB, sent as base64), ` +
    `${seconds}s per phase in ${rounds} alternating rounds, ${os.availableParallelism()} cores, ${pool.size} model workers (model ${pool.modelVersion}, ` +
    `pool start ${fmt(loadMs)} ms)`,
);
console.log(
  `idle baseline   event loop p50 ${fmt(idle.p50, 1)} ms  p99 ${fmt(idle.p99, 1)} ms  max ${fmt(idle.max, 1)} ms (nothing running in this process; load average ${os
    .loadavg()
    .map((l) => fmt(l, 1))
    .join(' ')})`,
);
console.log(
  `raw pool        ${fmt(rawRate, 1).padStart(7)} images/s  (${concurrency} in flight)   event loop p50 ${fmt(rawLoop.p50, 1)} ms  p99 ${fmt(rawLoop.p99, 1)} ms  max ${fmt(rawLoop.max, 1)} ms  busy ${fmt(rawLoop.elu * 100, 1)} %`,
);
console.log(
  `POST /v1/check ${fmt(httpResult.rps, 1).padStart(7)} images/s  (${connections} connections) event loop p50 ${fmt(httpLoop.p50, 1)} ms  p99 ${fmt(httpLoop.p99, 1)} ms  max ${fmt(httpLoop.max, 1)} ms  busy ${fmt(httpLoop.elu * 100, 1)} %`,
);
console.log(
  `  request latency p50 ${fmt(httpResult.p50)} ms  p99 ${fmt(httpResult.p99)} ms (worst round)  errors ${httpResult.errors}/${httpResult.requests}`,
);
console.log(`  per round, raw vs HTTP images/s: ${perRound.join(' | ')}`);
console.log(
  `ratio HTTP / raw: ${fmt(ratio, 3)} (target ≥ 0.80: ${ratio >= 0.8 ? 'PASS' : 'FAIL'}); ` +
    `event-loop p99 under HTTP load (worst round) ${fmt(httpLoop.p99, 1)} ms (target < 20 ms: ${httpLoop.p99 < 20 ? 'PASS' : 'FAIL'})`,
);

await server.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

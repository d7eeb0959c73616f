// Batches and webhook delivery, in one run, in-process (real text model, SQLite, embedded queue):
//  1. one POST /v1/batch/check of 100 texts against 100 sequential POST /v1/check of the same texts;
//  2. decision.created events delivered per second to a local HTTPS receiver (signatures verified), by the worker.
// Run by hand: node --import tsx bench/batch.ts [rounds] [events]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../packages/server/src/app.ts';
import { bootstrap } from '../packages/server/src/bootstrap.ts';
import { createContext } from '../packages/server/src/context.ts';
import { startWorker } from '../packages/server/src/jobs/worker.ts';
import { testConfig } from '../packages/server/test/helpers/app.ts';
import { tempDir } from '../packages/server/test/helpers/databases.ts';
import { createTestCa, HttpsReceiver, type TestCa } from '../packages/server/test/helpers/https-receiver.ts';

// The parent makes a test CA and runs the measurement twice in child processes: once with the CA given to the
// service as VERDICT_CA_FILE (an extra CA passed to every outbound request), once with the CA in Node's default
// trust store (NODE_EXTRA_CA_CERTS), which is how public endpoints with public certificates are reached.
if (!process.env.BENCH_CA_DIR) {
  const ca = createTestCa();
  const self = fileURLToPath(import.meta.url);
  const run = (env: Record<string, string>) =>
    execFileSync(process.execPath, ['--import', 'tsx', self, ...process.argv.slice(2)], {
      env: { ...process.env, VERDICT_QUIET_SKIPS: '1', BENCH_CA_DIR: ca.dir, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }).toString();
  process.stdout.write(run({ BENCH_MODE: 'ca-file' }));
  process.stdout.write(run({ BENCH_MODE: 'system', NODE_EXTRA_CA_CERTS: path.join(ca.dir, 'ca.pem') }));
  fs.rmSync(ca.dir, { recursive: true, force: true });
  process.exit(0);
}
const mode = process.env.BENCH_MODE as 'ca-file' | 'system';

const rounds = Number(process.argv[2] ?? 5);
const eventCount = Number(process.argv[3] ?? 500);
const KEY = 'vk_bench_key_000000000000000000';
const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. ' +
  'Can a moderator please lock it? Some of the replies are rude and a couple are outright insults to other users.';
const text = (round: number, i: number) => `${SAMPLE} #${round}-${i}`.slice(0, 280);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 1) => n.toFixed(digits);

const caDir = process.env.BENCH_CA_DIR;
const ca: TestCa = {
  dir: caDir,
  caFile: path.join(caDir, 'ca.pem'),
  caPem: fs.readFileSync(path.join(caDir, 'ca.pem'), 'utf8'),
  key: fs.readFileSync(path.join(caDir, 'server.key'), 'utf8'),
  cert: fs.readFileSync(path.join(caDir, 'server.pem'), 'utf8'),
};
const receiver = new HttpsReceiver(ca);
await receiver.start();
const dataDir = tempDir('verdict-bench-');
const config = testConfig(
  dataDir,
  { kind: 'sqlite', file: `${dataDir}/verdict.db` },
  { allowPrivateUrls: true, caFile: mode === 'ca-file' ? ca.caFile : null, workerConcurrency: 16 },
);
const ctx = await createContext(config, { bootstrapKey: KEY });
await bootstrap(ctx);
const app = await buildApp(ctx);
await app.ready();
let key = KEY;
const post = async (url: string, body: unknown) => {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${key}` },
    payload: body as object,
  });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};

// A key whose rate limits do not throttle the benchmark.
key = (
  await post('/v1/keys', {
    name: 'bench',
    scopes: ['admin'],
    rateLimit: { perMinute: 1_000_000, burstPerSecond: 1_000_000 },
  })
).key;

// 1. Synchronous batch of 100 against 100 sequential single checks (warm-up round first); measured once.
const batchMs: number[] = [];
const singleMs: number[] = [];
for (let round = -1; mode === 'ca-file' && round < rounds; round++) {
  let started = performance.now();
  for (let i = 0; i < 100; i++) await post('/v1/check', { content: text(round, i), policyId: 'default' });
  const single = performance.now() - started;
  started = performance.now();
  const batch = await post('/v1/batch/check', {
    policyId: 'default',
    items: Array.from({ length: 100 }, (_, i) => ({ id: String(i), content: text(round, i) })),
  });
  const batched = performance.now() - started;
  if (batch.items.length !== 100) throw new Error('batch answered the wrong number of items');
  if (round >= 0) {
    singleMs.push(single);
    batchMs.push(batched);
  }
}

// 2. Events delivered per second: a webhook on decision.created, decisions made in batches of 100.
const hook = await post('/v1/webhooks', { url: `${receiver.url}/bench`, events: ['decision.created'] });
receiver.secrets.push(hook.secret);
const worker = startWorker(ctx);
const started = performance.now();
for (let made = 0; made < eventCount; made += 100) {
  const size = Math.min(100, eventCount - made);
  await post('/v1/batch/check', {
    policyId: 'default',
    items: Array.from({ length: size }, (_, i) => ({ id: String(i), content: text(1000 + made, i) })),
  });
}
await receiver.waitFor(() => receiver.requests.length >= eventCount, 300_000, 'all events');
const deliverySeconds = (performance.now() - started) / 1000;
const unsigned = receiver.requests.filter((r) => r.verifiedWith === null).length;
await worker.stop({ timeoutMs: 2000 });

if (mode === 'ca-file') {
  console.log(
    `Batches and webhooks, one run, ${rounds} rounds (median), real text model, SQLite, in-process`,
  );
  console.log(`100 sequential POST /v1/check   ${fmt(median(singleMs)).padStart(8)} ms`);
  console.log(`1 POST /v1/batch/check (100)    ${fmt(median(batchMs)).padStart(8)} ms`);
  console.log(`ratio singles / batch: ${fmt(median(singleMs) / median(batchMs), 2)}x`);
}
console.log(
  `webhook delivery (${mode === 'ca-file' ? 'CA via VERDICT_CA_FILE' : 'CA in the default trust store'}): ` +
    `${eventCount} decision.created events in ${fmt(deliverySeconds, 2)} s = ${fmt(eventCount / deliverySeconds)} ` +
    `events/s to a local HTTPS receiver, worker concurrency 16, ${unsigned} unsigned`,
);

await app.close();
await ctx.close();
await receiver.stop();
fs.rmSync(dataDir, { recursive: true, force: true });

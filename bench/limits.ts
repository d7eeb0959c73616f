// Throughput of POST /v1/check with rate limits on (in-memory counters, and Redis when REDIS_URL is set) against
// limits off, in one run. Run by hand: node --import tsx bench/limits.ts [seconds] [connections]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, load, startChild } from './lib/load.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const KEY = 'vk_bench_key_000000000000000000';
const body = (i: number) =>
  JSON.stringify({
    content: `A perfectly ordinary comment about the weather, number ${i}.`,
    policyId: 'default',
  });
const generous = {
  VERDICT_RATE_LIMIT_PER_MINUTE: '1000000',
  VERDICT_RATE_LIMIT_BURST_PER_SECOND: '1000000',
};

// Each pair differs only in the limits: with REDIS_URL set, the queue also moves to Redis, so compare like with like.
const variants: [string, Record<string, string>][] = [
  ['limits off', { VERDICT_RATE_LIMITS: 'false', REDIS_URL: '' }],
  ['limits on (memory)', { VERDICT_RATE_LIMITS: 'true', REDIS_URL: '', ...generous }],
];
if (process.env.REDIS_URL) {
  variants.push(['limits off (redis)', { VERDICT_RATE_LIMITS: 'false', REDIS_URL: process.env.REDIS_URL }]);
  variants.push([
    'limits on (redis)',
    { VERDICT_RATE_LIMITS: 'true', REDIS_URL: process.env.REDIS_URL, ...generous },
  ]);
}

const results: [string, number][] = [];
for (const [name, env] of variants) {
  const childEnv = {
    ...env,
    VERDICT_BOOTSTRAP_KEY: KEY,
    ...(name.includes('redis') ? {} : { REDIS_URL: '' }),
  };
  const { child, origin } = await startChild(path.join(here, 'servers/verdict.ts'), childEnv);
  const opts = { origin, path: '/v1/check', body, headers: { authorization: `Bearer ${KEY}` }, connections };
  await load({ ...opts, seconds: 2 });
  const r = await load({ ...opts, seconds });
  results.push([name, r.rps]);
  console.log(
    `${name.padEnd(20)} ${fmt(r.rps).padStart(8)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}`,
  );
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}
const rps = Object.fromEntries(results);
console.log(`memory: limits on / off = ${fmt(rps['limits on (memory)']! / rps['limits off']!, 3)}`);
if (rps['limits on (redis)']) {
  console.log(`redis:  limits on / off = ${fmt(rps['limits on (redis)']! / rps['limits off (redis)']!, 3)}`);
}

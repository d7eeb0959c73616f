// Throughput of POST /v1/check (text, default policy, real model, SQLite) against a bare Fastify route with the same
// body, measured in one run. Run by hand: node --import tsx bench/check.ts [seconds] [connections]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, load, startChild } from './lib/load.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const KEY = 'vk_bench_key_000000000000000000';
const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. ' +
  'Can a moderator please lock it? Some of the replies are rude and a couple are outright insults to other users.';
const body = (i: number) => JSON.stringify({ content: `${SAMPLE} #${i}`.slice(0, 280), policyId: 'default' });

const results: Record<string, Awaited<ReturnType<typeof load>>> = {};
for (const [name, script] of [
  ['bare-fastify', 'servers/bare-fastify.ts'],
  ['verdict', 'servers/verdict.ts'],
] as const) {
  // Limits on (the default), set high enough that the benchmark measures checks rather than 429s.
  const { child, origin } = await startChild(path.join(here, script), {
    VERDICT_BOOTSTRAP_KEY: KEY,
    VERDICT_RATE_LIMIT_PER_MINUTE: '10000000',
    VERDICT_RATE_LIMIT_BURST_PER_SECOND: '1000000',
    VERDICT_IMAGE_PRELOAD: 'false',
  });
  await load({
    origin,
    path: '/v1/check',
    body,
    headers: { authorization: `Bearer ${KEY}` },
    connections,
    seconds: 2,
  });
  results[name] = await load({
    origin,
    path: '/v1/check',
    body,
    headers: { authorization: `Bearer ${KEY}` },
    connections,
    seconds,
  });
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}
console.log(`POST /v1/check, 280-char texts, ${connections} connections, ${seconds}s each, one run`);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(14)} ${fmt(r.rps).padStart(8)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}`,
  );
}
console.log(`ratio verdict / bare-fastify: ${fmt(results.verdict!.rps / results['bare-fastify']!.rps, 3)}`);

// The cost of a cascade (issue 19): POST /v1/check throughput under a policy that escalates uncertain texts to an
// external provider answering in 200 ms, against the same policy judged by the bundled model alone, in one run.
// The mix holds 5 % texts whose local scores fall within the escalation band. The provider is the tests' fake of
// OpenAI's moderation API (HTTPS, real sockets). Run by hand: node --import tsx bench/cascade.ts [seconds] [connections]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeAiProviders } from '../packages/server/test/helpers/fake-ai-providers.ts';
import { createTestCa } from '../packages/server/test/helpers/https-receiver.ts';
import { fmt, load, startChild } from './lib/load.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const KEY = 'vk_bench_key_000000000000000000';
const BAND = 0.1;
const CATEGORIES = { hate: 0.5, harassment: 0.7, violence: 0.5 } as const;

const ca = createTestCa();
const fake = new FakeAiProviders(ca);
await fake.start();
fake.behaviour = { delayMs: 200 };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-cascade-'));
const providersFile = path.join(dir, 'providers.yaml');
fs.writeFileSync(
  providersFile,
  `providers:\n  remote:\n    kind: openai-moderation\n    url: ${fake.url}/v1/moderations\n    allowPrivateNetwork: true\n    timeoutMs: 5000\n    maxConcurrency: 256\n    costPerCall: 0.0005\n`,
);
const { child, origin } = await startChild(path.join(here, 'servers/verdict.ts'), {
  VERDICT_BOOTSTRAP_KEY: KEY,
  VERDICT_RATE_LIMIT_PER_MINUTE: '10000000',
  VERDICT_RATE_LIMIT_BURST_PER_SECOND: '1000000',
  VERDICT_IMAGE_PRELOAD: 'false',
  VERDICT_PROVIDERS_FILE: providersFile,
  VERDICT_CA_FILE: ca.caFile,
});
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const post = async (p: string, body: unknown) => {
  const res = await fetch(`${origin}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return (await res.json()) as any;
};
const categories = Object.entries(CATEGORIES)
  .map(([c, t]) => `  ${c}: { threshold: ${t}, action: block }`)
  .join('\n');
await post('/v1/policies', {
  policyId: 'local-only',
  yamlContent: `name: local\ncategories:\n${categories}\n`,
});
await post('/v1/policies', {
  policyId: 'cascade',
  yamlContent: `name: cascade\nescalate: { provider: remote, when: uncertain, band: ${BAND} }\ncategories:\n${categories}\n`,
});

// A pool of comment-like texts; each is sorted into certain or uncertain by its local scores, then a mix of 1,000
// is drawn with 5 % uncertain ones.
const openers = ['Honestly', 'Look', 'Well', 'Seriously', 'Okay', 'Listen', 'Frankly', 'Wow'];
const middles = [
  'this thread is getting long and the links repeat',
  'thanks for sharing the recipe, it worked great',
  'you are an idiot and everyone here knows it',
  'people like you should not be allowed to post',
  'I will find you and make you pay for this',
  'the referee was terrible, what a stupid game',
  'those people are animals and ruin every city',
  'shut up, nobody asked for your garbage opinion',
  'can a moderator please lock this, it is going nowhere',
  'I hate mondays and I hate this traffic',
  'you must be the dumbest person on this forum',
  'go back to where you came from',
];
const closers = ['.', ', seriously.', '!', ', just saying.', '?', ' lol.'];
const pool: string[] = [];
for (const o of openers) for (const m of middles) for (const c of closers) pool.push(`${o}, ${m}${c}`);
const certain: string[] = [];
const uncertain: string[] = [];
for (const text of pool) {
  const r = await post('/v1/check', { content: text, policyId: 'local-only' });
  const near = r.categories.some((c: any) => Math.abs(c.score - c.threshold) <= BAND);
  (near ? uncertain : certain).push(text);
}
if (uncertain.length === 0 || certain.length === 0)
  throw new Error('the pool has no uncertain (or no certain) texts');
const mix = Array.from({ length: 1000 }, (_, i) =>
  i % 20 === 0 ? uncertain[(i / 20) % uncertain.length]! : certain[i % certain.length]!,
);

const results: Record<string, Awaited<ReturnType<typeof load>>> = {};
const escalations: Record<string, number> = {};
for (const policyId of ['local-only', 'cascade']) {
  const body = (i: number) => JSON.stringify({ content: mix[i % mix.length], policyId });
  await load({ origin, path: '/v1/check', body, headers, connections, seconds: 2 });
  const before = fake.requests.length;
  results[policyId] = await load({ origin, path: '/v1/check', body, headers, connections, seconds });
  escalations[policyId] = fake.requests.length - before;
}
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
await fake.stop();
fs.rmSync(dir, { recursive: true, force: true });
fs.rmSync(ca.dir, { recursive: true, force: true });

console.log(
  `POST /v1/check, ${connections} connections, ${seconds}s each; pool ${pool.length} texts (${uncertain.length} uncertain within ${BAND}); mix 5 % uncertain; provider answers in 200 ms`,
);
for (const [name, r] of Object.entries(results)) {
  console.log(
    `${name.padEnd(11)} ${fmt(r.rps).padStart(8)} req/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  errors ${r.errors}  escalated ${escalations[name]} (${fmt((100 * escalations[name]!) / r.requests, 2)} %)`,
  );
}
console.log(`ratio cascade / local-only: ${fmt(results.cascade!.rps / results['local-only']!.rps, 3)}`);

// Human review (issue 18) on the compiled service (npm start's code, SQLite, the bundled text model):
//  1. the cost of queueing: N checks under a policy that queues every decision (`reviewActions` naming every
//     action) against N checks under the same policy without review keys, in the same run → a throughput ratio;
//  2. claims: R reviewers claiming 10 at a time, concurrently, until the queue is empty → claims per second, and
//     a check that no entry was leased twice;
//  3. the statement export (all=true) of every decision → statements per second.
// Run by hand (after `npm run prepare`): node --import tsx bench/review.ts [checks] [reviewers]
import { Pool } from 'undici';
import { SERVICE, startServer } from './lib/service.ts';

const checks = Number(process.argv[2] ?? 2000);
const reviewers = Number(process.argv[3] ?? 4);
const KEY = 'vk_bench_key_000000000000000000';
const CATEGORIES = '  hate: { threshold: 0.5, action: block }\n  spam: { threshold: 0.8, action: warn }\n';

const server = await startServer(SERVICE, {
  VERDICT_BOOTSTRAP_KEY: KEY,
  VERDICT_IMAGE_PRELOAD: 'false',
  VERDICT_RATE_LIMITS: 'false',
  LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  REDIS_URL: '',
});
const pool = new Pool(server.origin, { connections: 16 });

async function call(method: 'GET' | 'POST', path: string, body?: unknown, key = KEY) {
  const res = await pool.request({
    path,
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return text;
}

async function checkRun(policyId: string, n: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        await call('POST', '/v1/check', { content: `a message about the weather, number ${i}`, policyId });
      }
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

try {
  await call('POST', '/v1/policies', {
    policyId: 'plain',
    yamlContent: `name: plain\ncategories:\n${CATEGORIES}`,
  });
  await call('POST', '/v1/policies', {
    policyId: 'queued',
    yamlContent: `name: queued\ncategories:\n${CATEGORIES}reviewActions: [allow, warn, flag, block]\n`,
  });
  await checkRun('plain', 200); // warm-up: model load, statement caches
  const plain = await checkRun('plain', checks);
  const queued = await checkRun('queued', checks);
  console.log(
    `checks/s without review ${plain.toFixed(0)}, every decision queued ${queued.toFixed(0)}: ratio ${(queued / plain).toFixed(3)}`,
  );

  const keys: string[] = [];
  for (let r = 0; r < reviewers; r++)
    keys.push(JSON.parse(await call('POST', '/v1/keys', { name: `reviewer-${r}`, scopes: ['review'] })).key);
  const seen = new Set<string>();
  let duplicates = 0;
  let claims = 0;
  const started = performance.now();
  await Promise.all(
    keys.map(async (key) => {
      for (;;) {
        const { items } = JSON.parse(await call('POST', '/v1/review/queue/claim', { limit: 10 }, key));
        claims++;
        if (items.length === 0) return;
        for (const item of items) {
          if (seen.has(item.itemId)) duplicates++;
          seen.add(item.itemId);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${reviewers} reviewers leased ${seen.size} entries in ${claims} claims: ${(claims / seconds).toFixed(0)} claims/s, ` +
      `${(seen.size / seconds).toFixed(0)} entries/s, leased twice: ${duplicates}`,
  );

  const exportStart = performance.now();
  const jsonl = await call('GET', '/v1/statements/export?all=true');
  const lines = jsonl.split('\n').filter(Boolean).length;
  const exportSeconds = (performance.now() - exportStart) / 1000;
  console.log(
    `export: ${lines} statements in ${exportSeconds.toFixed(2)} s (${(lines / exportSeconds).toFixed(0)}/s)`,
  );
} finally {
  await pool.close();
  await server.stop();
  server.remove();
}

// Bytes of SQLite storage per decision: the compiled service (npm start's code) answers N checks of ~200-character
// texts (each different, no webhook subscribed), is stopped (its last checkpoint folds the write-ahead log into the
// database file), and the file's growth over the fresh database is divided by N. Run by hand:
//   node --import tsx bench/storage.ts [checks]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { SERVICE, startServer } from './lib/service.ts';

const checks = Number(process.argv[2] ?? 5000);
const KEY = 'vk_bench_key_000000000000000000';
const SAMPLE =
  'Honestly this thread is getting out of hand, people keep posting the same links over and over. ' +
  'Can a moderator please lock it? Some replies are rude and a couple are outright insults to other users';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-storage-'));
const file = path.join(dataDir, 'verdict.db');

async function run(n: number): Promise<void> {
  const server = await startServer(
    SERVICE,
    {
      VERDICT_BOOTSTRAP_KEY: KEY,
      VERDICT_IMAGE_PRELOAD: 'false',
      VERDICT_RATE_LIMITS: 'false',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      REDIS_URL: '',
    },
    { dataDir },
  );
  const pool = new Pool(server.origin, { connections: 16 });
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        const res = await pool.request({
          path: '/v1/check',
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
          body: JSON.stringify({ content: `${SAMPLE} #${i}`, policyId: 'default' }),
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`check ${i}: ${res.statusCode}`);
      }
    }),
  );
  await pool.close();
  await server.stop(); // its last checkpoint folds the write-ahead log into the database file
}

await run(0);
const fresh = fs.statSync(file).size;
await run(checks);
const after = fs.statSync(file).size;
const wal = fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
const perDecision = (after + wal - fresh) / checks;
console.log(
  `${checks} checks of ~200-char texts, no webhook: database ${fresh} → ${after} bytes (WAL left ${wal}): ${perDecision.toFixed(0)} bytes per decision (target ≤ 2,048; ratio ${(perDecision / 2048).toFixed(2)})`,
);
fs.rmSync(dataDir, { recursive: true, force: true });

// The real service on its embedded defaults (SQLite in a temp dir, bundled models), for benchmarks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../packages/server/src/config.ts';
import { startServer } from '../../packages/server/src/server.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-'));
const { config, secrets } = loadConfig({
  ...process.env,
  // PORT=0 is refused by the config (the public URL must name the port); any free port is taken below
  PORT: '8080',
  VERDICT_DATA_DIR: dataDir,
  VERDICT_BOOTSTRAP_KEY: process.env.VERDICT_BOOTSTRAP_KEY ?? 'vk_bench_key_000000000000000000',
});
const server = await startServer({ ...config, port: 0 }, secrets, { logger: false });
process.stdout.write(`READY ${new URL(server.url).port}\n`);
const stop = () =>
  server.stop().finally(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

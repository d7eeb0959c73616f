/**
 * Start-up and CLI benchmark: wall time of whole processes, against `node -e 0` (and, for the CLI, a bare `fetch`)
 * measured in the same run, in turn, so that a machine whose speed drifts affects every row alike.
 *   npm run build && node --import tsx bench/startup.ts [runs=5] [--no-image]
 * - start-up: `verdict serve` (compiled, as `npm start` runs it) on a new data directory, to its first `/readyz` 200
 *   (text warm-up included; the image model too, unless --no-image), and to its first HTTP answer (listening);
 * - CLI: `verdict --help`, `verdict check` against a running service, `verdict keys list` on its database.
 * Prints min / median / max seconds and each median over the `node -e 0` median. `--cli=<path to verdict.js>` times
 * another build (e.g. a copy of dist/ from before a change) instead of packages/server/dist.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cliArg = process.argv.find((a) => a.startsWith('--cli='));
const CLI = cliArg
  ? path.resolve(cliArg.slice('--cli='.length))
  : path.join(repo, 'packages/server/dist/bin/verdict.js');
const runs = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 5);
const image = !process.argv.includes('--no-image');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The status of GET url, or 0 when nothing answers. */
function status(url: string): Promise<number> {
  return new Promise((resolve) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', () => resolve(0));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Seconds from spawning `node args` to its exit. */
async function timed(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
  await exited(child);
  return (performance.now() - started) / 1000;
}

function serviceEnv(dataDir: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, VERDICT_BOOTSTRAP_KEY: _b, ...rest } = process.env;
  return {
    ...rest,
    VERDICT_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** One start: seconds to listening and to ready. */
async function start(): Promise<{ listening: number; ready: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-start-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: serviceEnv(dir, port, { VERDICT_IMAGE_PRELOAD: String(image) }),
    stdio: 'ignore',
  });
  let listening = 0;
  try {
    for (;;) {
      const code = await status(`http://127.0.0.1:${port}/readyz`);
      const now = (performance.now() - started) / 1000;
      if (code !== 0 && listening === 0) listening = now;
      if (code === 200) return { listening, ready: now };
      if (child.exitCode !== null) throw new Error(`verdict serve exited with ${child.exitCode}`);
      await sleep(10);
    }
  } finally {
    child.kill('SIGTERM');
    await exited(child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function row(name: string, seconds: number[], baseline?: number): string {
  const sorted = [...seconds].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const ratio = baseline ? `  ${(median / baseline).toFixed(2)}× node -e 0` : '';
  return `${name.padEnd(40)} ${sorted[0]!.toFixed(3)} / ${median.toFixed(3)} / ${sorted.at(-1)!.toFixed(3)} s${ratio}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

// start-up, each run next to a bare Node start
const bare: number[] = [];
const listening: number[] = [];
const ready: number[] = [];
for (let i = 0; i < runs; i++) {
  bare.push(await timed(['-e', '0']));
  const one = await start();
  listening.push(one.listening);
  ready.push(one.ready);
}
const base = median(bare);
console.log(
  `${os.availableParallelism()} CPUs, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`start-up, ${runs} runs (min / median / max), image model ${image ? 'preloaded' : 'off'}:`);
console.log(row('node -e 0', bare));
console.log(row('verdict serve: listening', listening, base));
console.log(row('verdict serve: /readyz 200', ready, base));

// the CLI against a running service
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-cli-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const service = spawn(process.execPath, [CLI, 'serve'], {
  env: serviceEnv(dir, port, { VERDICT_IMAGE_PRELOAD: 'false', VERDICT_TEXT_WARMUP: 'false' }),
  stdio: ['ignore', 'pipe', 'ignore'],
});
let output = '';
service.stdout!.on('data', (d) => {
  output += d;
});
try {
  while ((await status(`${url}/readyz`)) !== 200) await sleep(50);
  const key = /export VERDICT_API_KEY=(vk_\S+)/.exec(output)?.[1];
  if (!key) throw new Error(`no first key printed:\n${output}`);
  const env = { ...serviceEnv(dir, port), VERDICT_URL: url, VERDICT_API_KEY: key };
  const fetchScript = `const r = await fetch(${JSON.stringify(`${url}/healthz`)}); await r.text();`;
  const commands: [string, string[]][] = [
    ['node -e 0', ['-e', '0']],
    ['a bare fetch (node --input-type=module)', ['--input-type=module', '-e', fetchScript]],
    ['verdict --help', [CLI, '--help']],
    ['verdict check hello', [CLI, 'check', 'hello']],
    ['verdict keys list', [CLI, 'keys', 'list']],
  ];
  const times = commands.map((): number[] => []);
  // a warm-up round, then the commands in turn
  for (let i = -1; i < Math.max(runs, 9); i++) {
    for (const [c, [, args]] of commands.entries()) {
      const seconds = await timed(args, env);
      if (i >= 0) times[c]!.push(seconds);
    }
  }
  console.log(`CLI, ${times[0]!.length} runs in turn (min / median / max):`);
  const cliBase = median(times[0]!);
  for (const [c, [name]] of commands.entries())
    console.log(row(name, times[c]!, c === 0 ? undefined : cliBase));
} finally {
  service.kill('SIGTERM');
  await exited(service);
  fs.rmSync(dir, { recursive: true, force: true });
}

// A server process for a benchmark: on a free port, in a fresh data directory, its stdout written to a log file,
// answered once `ready` says 200. `stop()` ends it (SIGTERM: the service checkpoints and closes) and keeps the data
// directory until `remove()`, so a bench can measure what the service left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The service as `npm start` runs it: compiled JavaScript. */
export const SERVICE = [path.join(REPO, 'packages/server/dist/bin/verdict.js'), 'serve'];

export interface BenchServer {
  origin: string;
  dataDir: string;
  logFile: string;
  child: ChildProcess;
  stop(): Promise<void>;
  remove(): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export async function startServer(
  args: string[],
  env: Record<string, string>,
  options: { ready?: string; dataDir?: string; port?: number } = {},
): Promise<BenchServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-bench-'));
  const logFile = path.join(dataDir, 'server.log');
  // appended: a restarted server (same data directory) keeps the log of the runs before it
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, PORT: String(port), VERDICT_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', log, 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    fs.closeSync(log);
  };
  try {
    await waitReady(`${origin}${options.ready ?? '/readyz'}`, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    origin,
    dataDir,
    logFile,
    child,
    stop,
    remove: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never became ready`);
}

/**
 * CPU time (user + system, all threads) a process has used so far, in milliseconds, from /proc (Linux). Divided by
 * the requests served in a window, it is the CPU a request costs: unlike throughput, it hardly moves when other work
 * shares the machine, so it is the figure to compare changes with on a busy machine.
 */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // fields after the command name (which may hold spaces), from field 3 on: utime and stime are fields 14 and 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

/**
 * A new, empty PostgreSQL database on the server of `serverUrl` (BENCH_DATABASE_URL), for one bench run: its URL, and
 * `drop()` to remove it (with any connection still open to it).
 */
export async function freshDatabase(
  serverUrl: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

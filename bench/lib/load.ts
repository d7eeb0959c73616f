import { type ChildProcess, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

/** Drives `connections` concurrent keep-alive clients against one URL for `seconds`; bounded in time and count. */
export async function load(options: {
  origin: string;
  path: string;
  body: (i: number) => string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  maxRequests?: number;
}): Promise<LoadResult> {
  const pool = new Pool(options.origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const max = options.maxRequests ?? 1_000_000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < deadline && issued < max) {
        const i = issued++;
        const t0 = performance.now();
        try {
          const res = await pool.request({
            path: options.path,
            method: 'POST',
            headers: { 'content-type': 'application/json', ...options.headers },
            body: options.body(i),
          });
          await res.body.text();
          if (res.statusCode !== 200) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

/** Starts a bench server script as a child process; it prints `READY <port>` when listening. */
export async function startChild(
  script: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

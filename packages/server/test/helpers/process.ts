import { type ChildProcess, execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The compiled CLI, as `npm start` and the `verdict` bin run it (the test set-up builds it). */
export const CLI = path.resolve(here, '../../dist/bin/verdict.js');
const run = promisify(execFile);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _d, REDIS_URL: _r, VERDICT_BOOTSTRAP_KEY: _b, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', VERDICT_IMAGE_PRELOAD: 'false', VERDICT_TEXT_WARMUP: 'false', ...env };
}

/** Runs a `verdict` CLI command to completion. */
export async function verdict(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: baseEnv(env),
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `verdict serve` as a child process and waits until it prints where it listens. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: baseEnv({ ...env, PORT: port }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const poll = setInterval(() => {
      if (output.includes('listening on')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve();
      }
    }, 25);
    exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** One JSON request to a running server with an API key (process-level tests). */
export async function callApi(base: string, key: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const FIRST_KEY = /\n {2}export VERDICT_API_KEY=(vk_[A-Za-z0-9_-]+)\n/;

/** The admin key a first start prints (its banner follows the "listening" line: waits up to 5 s), or undefined. */
export async function firstStartKey(server: ServerProcess): Promise<string | undefined> {
  for (let waited = 0; !FIRST_KEY.test(server.output()) && waited < 5000; waited += 25) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return FIRST_KEY.exec(server.output())?.[1];
}

/**
 * Runs a rendered cURL command in a real bash with `curl` replaced by a function that prints its arguments, one per
 * line; never throws: a command that stops itself (e.g. a missing file) gives its exit code and stderr.
 */
export async function runCurl(
  curl: string,
  env: Record<string, string>,
): Promise<{ code: number; args: string[]; stderr: string }> {
  try {
    const { stdout, stderr } = await run('bash', ['-c', `curl() { printf '%s\\n' "$@"; }; ${curl}`], {
      env: { PATH: process.env.PATH ?? '', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, args: stdout.split('\n'), stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, args: e.stdout ? e.stdout.split('\n') : [], stderr: e.stderr };
  }
}

/** runCurl for a command that must succeed: its arguments and the JSON body after --data-raw. */
export async function curlArguments(
  curl: string,
  env: Record<string, string>,
): Promise<{ args: string[]; body: any }> {
  const { code, args, stderr } = await runCurl(curl, env);
  if (code !== 0) throw new Error(`the cURL command failed (${code}): ${stderr}`);
  return { args, body: JSON.parse(args[args.indexOf('--data-raw') + 1]!) };
}

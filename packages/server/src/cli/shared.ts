import fs from 'node:fs';
import type * as Sdk from '@verdict/sdk';
import type { Command } from 'commander';

/** Where client commands read and write; tests pass their own. */
export interface CliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Records the exit code (the process exits with it when the command is done). */
  setExitCode(code: number): void;
  readStdin(): Promise<string>;
}

export const processIO: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  setExitCode: (code) => {
    process.exitCode = code;
  },
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Exit codes of the client commands. */
export const EXIT = {
  /** The service answered with an error (4xx/5xx). */
  api: 1,
  /** Bad usage or input: a missing key, an unreadable file, an invalid JSONL line. */
  usage: 2,
  /** The service could not be reached or did not answer in time. */
  connection: 3,
  /** `--fail-on`: the content's action reached the given severity. */
  failOn: 4,
} as const;

export const EXIT_CODES_HELP = `
Exit codes: 0 success, ${EXIT.api} the service answered with an error, ${EXIT.usage} bad usage or input,
${EXIT.connection} the service could not be reached or timed out, ${EXIT.failOn} --fail-on matched.
Errors are printed on stderr as "verdict: CODE: message".`;

/** A failure of the command itself (not of the service), printed as `verdict: CODE: message`. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  url?: string;
  apiKey?: string;
  json?: boolean;
}

/** The options every client command takes: where the service is, the key, and the output format. */
export function clientOptions(command: Command): Command {
  return command
    .option('--url <url>', 'service URL (default: $VERDICT_URL or http://127.0.0.1:8080)')
    .option('--api-key <key>', 'API key (default: $VERDICT_API_KEY)')
    .option('--json', 'print JSON for scripts instead of text');
}

// The SDK and the HTTP transport are loaded by the commands that talk to the service, not by `verdict --help` or the
// operator commands (keys, accounts, migrate), which work on the database directly.
let sdk: Pick<typeof Sdk, 'VerdictError' | 'APIConnectionError'> | null = null;

export async function makeClient(opts: ClientOptions, io: CliIO): Promise<Sdk.Verdict> {
  const apiKey = opts.apiKey ?? io.env.VERDICT_API_KEY;
  if (!apiKey) throw new CliError('MISSING_API_KEY', 'no API key: pass --api-key or set VERDICT_API_KEY');
  const baseUrl = opts.url ?? io.env.VERDICT_URL ?? 'http://127.0.0.1:8080';
  try {
    new URL(baseUrl);
  } catch {
    throw new CliError('INVALID_URL', `--url: not a URL: "${baseUrl}"`);
  }
  const [{ Verdict, VerdictError, APIConnectionError }, { httpFetch }] = await Promise.all([
    import('@verdict/sdk'),
    import('./http-transport.ts'),
  ]);
  sdk = { VerdictError, APIConnectionError };
  return new Verdict({ apiKey, baseUrl, fetch: httpFetch });
}

/** An error of the SDK's (a failed call), with its code, details and request ID. */
export function isVerdictError(error: unknown): error is Sdk.VerdictError {
  // an error of the SDK's can only have come once a command loaded it
  return sdk !== null && error instanceof sdk.VerdictError;
}

export function readFile(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError('FILE_NOT_READABLE', `${what}: cannot read ${file}${code ? ` (${code})` : ''}`);
  }
}

export function parseInteger(value: string, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new CliError(
      'INVALID_ARGUMENT',
      `${name}: expected an integer from ${min} to ${max}, got "${value}"`,
    );
  }
  return Number(value);
}

export function parseNumber(value: string, name: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) {
    throw new CliError('INVALID_ARGUMENT', `${name}: expected a number, got "${value}"`);
  }
  return n;
}

export function printJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(io: CliIO, text = ''): void {
  io.stdout.write(`${text}\n`);
}

/** Left-aligned columns, for lists. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

/** Runs a command body: failures become `verdict: CODE: message` on stderr and a non-zero exit code. */
export function action<A extends unknown[]>(io: CliIO, fn: (...args: A) => Promise<void>) {
  return async (...args: A): Promise<void> => {
    try {
      await fn(...args);
    } catch (error) {
      reportError(io, error);
    }
  };
}

export function reportError(io: CliIO, error: unknown): void {
  if (error instanceof CliError) {
    io.stderr.write(`verdict: ${error.code}: ${error.message}\n`);
    io.setExitCode(error.exitCode);
    return;
  }
  if (isVerdictError(error)) {
    const lines = [`verdict: ${error.code}: ${error.message}`];
    if (error.details !== undefined) lines.push(`  details: ${JSON.stringify(error.details)}`);
    if (error.requestId) lines.push(`  request: ${error.requestId}`);
    io.stderr.write(`${lines.join('\n')}\n`);
    io.setExitCode(
      error instanceof sdk!.APIConnectionError
        ? EXIT.connection
        : error.status === undefined
          ? EXIT.usage
          : EXIT.api,
    );
    return;
  }
  io.stderr.write(`verdict: INTERNAL_ERROR: ${error instanceof Error ? error.message : String(error)}\n`);
  io.setExitCode(EXIT.api);
}

// Load from wrk (Debian's `wrk`, a C load generator): the load itself costs the 2-core machine little, so the bare
// route's figure is the HTTP stack's, not the generator's. Each request carries a different body.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

export function hasWrk(): boolean {
  return fs.existsSync('/usr/bin/wrk');
}

/**
 * Lua for wrk: POST JSON bodies `prefix + counter + suffix`, so that no two texts are equal; with `repeat`, the body
 * is `outerPrefix + repeat × (prefix + counter + suffix + counter + itemEnd) joined by commas + outerSuffix` (a
 * batch of items, each with its own ID).
 */
function script(
  bodyPrefix: string,
  bodySuffix: string,
  headers: Record<string, string>,
  batch?: { repeat: number; outerPrefix: string; outerSuffix: string; itemEnd: string },
): string {
  const h = Object.entries({ 'content-type': 'application/json', ...headers })
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join('\n');
  return `wrk.method = "POST"
${h}
local n = 0
${
  batch
    ? `request = function()
  local parts = {}
  for i = 1, ${batch.repeat} do
    n = n + 1
    parts[i] = ${JSON.stringify(bodyPrefix)} .. n .. ${JSON.stringify(bodySuffix)} .. n .. ${JSON.stringify(batch.itemEnd)}
  end
  return wrk.format(nil, nil, nil, ${JSON.stringify(batch.outerPrefix)} .. table.concat(parts, ",") .. ${JSON.stringify(batch.outerSuffix)})
end`
    : `request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, ${JSON.stringify(bodyPrefix)} .. n .. ${JSON.stringify(bodySuffix)})
end`
}
done = function(summary, latency, requests)
  io.write(string.format("VERDICT-WRK %d %d %d %f %f\\n", summary.requests,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.duration, latency:percentile(50), latency:percentile(99)))
end
`;
}

export async function wrk(options: {
  url: string;
  bodyPrefix: string;
  bodySuffix: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  threads?: number;
  batch?: { repeat: number; outerPrefix: string; outerSuffix: string; itemEnd: string };
}): Promise<WrkResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-wrk-'));
  const lua = path.join(dir, 'post.lua');
  fs.writeFileSync(lua, script(options.bodyPrefix, options.bodySuffix, options.headers ?? {}, options.batch));
  try {
    const { stdout } = await run(
      '/usr/bin/wrk',
      [
        `-t${options.threads ?? 1}`,
        `-c${options.connections}`,
        `-d${options.seconds}s`,
        '--timeout',
        '5s',
        '-s',
        lua,
        options.url,
      ],
      { timeout: (options.seconds + 30) * 1000 },
    );
    const m = /VERDICT-WRK (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+)/.exec(stdout);
    if (!m) throw new Error(`unexpected wrk output:\n${stdout}`);
    const [requests, errors, micros, p50, p99] = m.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    return { requests, errors, rps: requests / (micros / 1e6), p50: p50 / 1000, p99: p99 / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

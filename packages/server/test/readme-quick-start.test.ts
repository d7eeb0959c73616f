import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startServerProcess } from './helpers/process.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

/** The fenced code blocks of the README's "Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const readme = fs.readFileSync(path.join(repo, 'README.md'), 'utf8');
  const start = readme.indexOf('## Quick start');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
}

describe("the README's quick start, as written", () => {
  it('start, paste the printed export line, run the check command: a decision', async () => {
    const blocks = quickStartBlocks();
    // npm ci && npm start; what it prints; the check command; npm ci && npm test
    expect(blocks[0]).toBe('npm ci && npm start');
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
    expect(pkg.scripts.start).toContain('packages/server/dist/bin/verdict.js serve');
    expect(blocks[1]).toContain('export VERDICT_API_KEY=vk_…');
    const check = blocks[2]!;
    expect(check).toContain('$VERDICT_API_KEY');
    expect(blocks[3]).toBe('npm ci && npm test');

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'verdict-readme-'));
    // `npm start` is `verdict serve` (checked above); the test runs it on a free port instead of 8080
    const server = await startServerProcess({ VERDICT_DATA_DIR: dataDir });
    try {
      let exportLine: string | undefined;
      for (let waited = 0; !exportLine && waited < 5000; waited += 25) {
        exportLine = /^\s*(export VERDICT_API_KEY=vk_[A-Za-z0-9_-]+)\s*$/m.exec(server.output())?.[1];
        if (!exportLine) await new Promise((r) => setTimeout(r, 25));
      }
      expect(exportLine, server.output()).toBeTruthy();
      const script = `${exportLine}\n${check.replaceAll('http://127.0.0.1:8080', server.url)}\n`;
      const { stdout } = await run('bash', ['-c', script], { timeout: 30_000 });
      const decision = JSON.parse(stdout);
      expect(decision.decisionId).toMatch(/^dec_/);
      expect(['flag', 'block']).toContain(decision.action); // "you are an idiot" under the default policy
      // the compiled service's bundled dependencies (dist/vendor): the metrics registry and the rate limiter
      const key = exportLine!.split('=')[1]!;
      const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/verdict_http_requests_total\{[^}]*route="\/v1\/check"/);
      const limited = await fetch(`${server.url}/v1/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'hello', policyId: 'default' }),
      });
      expect(limited.status).toBe(200);
      expect(limited.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.ts';
import { CLI } from './helpers/process.ts';

const run = promisify(execFile);

/**
 * `verdict --help` and the client commands (which only talk HTTP through the SDK) must start without the service's
 * modules: a static import of the event types pulled in the storage layer (977 Kysely modules) and `yaml` was loaded
 * for a providers file nobody named, which together took `verdict --help` from 0.25 to 0.55 s of wall time here.
 * Checked by the modules the process resolves, which is exact where a timing would be noisy.
 */
describe('the verdict command starts light', () => {
  const heavy =
    /\/node_modules\/(kysely|fastify|better-sqlite3|pg|ioredis|bullmq|yaml|sharp|onnxruntime-node)\//;

  async function resolvedModules(args: string[]): Promise<string[]> {
    const dir = tempDir('verdict-cli-startup-');
    const hooks = path.join(dir, 'hooks.mjs');
    const register = path.join(dir, 'register.mjs');
    const log = path.join(dir, 'resolved.txt');
    fs.writeFileSync(
      hooks,
      `import fs from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  fs.appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
    );
    fs.writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    try {
      await run(process.execPath, ['--import', register, CLI, ...args], {
        env: { ...process.env, VERDICT_URL: 'http://127.0.0.1:9', VERDICT_API_KEY: 'vk_unused' },
        timeout: 30_000,
      }).catch((error: { code?: number }) => {
        // a client command against a closed port fails; what it loaded before failing is what counts
        if (typeof error.code !== 'number') throw error;
      });
      return fs.readFileSync(log, 'utf8').trim().split('\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it.each([[['--help']], [['webhooks', '--help']], [['check', 'hello']]])(
    'verdict %j loads no database, HTTP server or YAML module',
    async (args) => {
      const modules = await resolvedModules(args);
      expect(modules.length).toBeGreaterThan(10);
      expect(modules.some((m) => m.includes('/sdk/'))).toBe(true);
      expect(modules.filter((m) => heavy.test(m))).toEqual([]);
    },
    60_000,
  );
});

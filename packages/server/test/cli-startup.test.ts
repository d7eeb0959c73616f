import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers/databases.ts';
import { CLI, freePort } from './helpers/process.ts';

const run = promisify(execFile);

/**
 * `verdict --help` and the client commands (which only talk HTTP through the SDK) must start without the service's
 * modules: a static import of the event types pulled in the storage layer (977 Kysely modules) and `yaml` was loaded
 * for a providers file nobody named, which together took `verdict --help` from 0.25 to 0.55 s of wall time here.
 * Node's global `fetch` (undici) cost a client command another third of a second (its code, and at exit the
 * background compilation of its WebAssembly parser); the commands use a transport over node:http instead.
 * Checked by the modules the process resolves (and Node's own modules it loads), which is exact where a timing
 * would be noisy.
 */
describe('the verdict command starts light', () => {
  const heavy =
    /\/node_modules\/(kysely|fastify|better-sqlite3|pg|ioredis|bullmq|yaml|sharp|onnxruntime-node|cli-progress)\//;

  /**
   * The modules a `verdict` process resolves or requires (URLs and paths) and the Node built-ins it loaded, undici's
   * among them.
   */
  async function loaded(
    args: string[],
    /** For `serve`: stop it (SIGTERM) once it prints where it listens. */
    options: { env?: Record<string, string>; untilListening?: boolean } = {},
  ): Promise<{ modules: string[]; builtins: string[] }> {
    const dir = tempDir('verdict-cli-startup-');
    const hooks = path.join(dir, 'hooks.mjs');
    const register = path.join(dir, 'register.mjs');
    const log = path.join(dir, 'resolved.txt');
    const builtinsLog = path.join(dir, 'builtins.txt');
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
      // at exit: Node's own modules, and the CommonJS ones (required lazily through createRequire, which the
      // resolve hook does not see)
      `import fs from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const cjs = createRequire(import.meta.url).cache;
process.on('exit', () => {
  fs.writeFileSync(${JSON.stringify(builtinsLog)}, process.moduleLoadList.join('\\n'));
  fs.appendFileSync(${JSON.stringify(log)}, Object.keys(cjs).join('\\n'));
});
`,
    );
    const { DATABASE_URL: _d, REDIS_URL: _r, ...inherited } = process.env;
    const env = {
      ...inherited,
      VERDICT_URL: 'http://127.0.0.1:9',
      VERDICT_API_KEY: 'vk_unused',
      VERDICT_DATA_DIR: path.join(dir, 'data'),
      ...options.env,
    };
    try {
      if (options.untilListening) {
        const child = spawn(process.execPath, ['--import', register, CLI, ...args], { env });
        let output = '';
        const exited = new Promise((resolve) => child.on('exit', resolve));
        child.stderr.on('data', (d) => {
          output += d;
        });
        let stopping = false;
        child.stdout.on('data', (d) => {
          output += d;
          if (stopping || !output.includes('listening on')) return;
          stopping = true;
          // once it answers HTTP, its SIGTERM handler is in place (a signal before it would end the process
          // without its exit handlers, which write what it loaded)
          http
            .get(`http://127.0.0.1:${options.env?.PORT}/healthz`, (res) => {
              res.resume();
              child.kill('SIGTERM');
            })
            .on('error', () => child.kill('SIGTERM'));
        });
        await exited;
        expect(output).toContain('listening on');
      } else {
        await run(process.execPath, ['--import', register, CLI, ...args], { env, timeout: 30_000 }).catch(
          (error: { code?: number }) => {
            // a client command against a closed port fails; what it loaded before failing is what counts
            if (typeof error.code !== 'number') throw error;
          },
        );
      }
      return {
        modules: fs.readFileSync(log, 'utf8').trim().split('\n'),
        builtins: fs.readFileSync(builtinsLog, 'utf8').split('\n'),
      };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  const undici = (builtins: string[]) => builtins.filter((m) => m.includes('undici'));

  it.each([[['--help']], [['webhooks', '--help']]])(
    'verdict %j loads no database, HTTP server, YAML module, SDK or fetch',
    async (args) => {
      const { modules, builtins } = await loaded(args);
      expect(modules.length).toBeGreaterThan(10);
      expect(modules.filter((m) => heavy.test(m) || m.includes('/sdk/'))).toEqual([]);
      expect(undici(builtins)).toEqual([]);
    },
    60_000,
  );

  it('verdict check loads the SDK and its node:http transport, not the database or the global fetch', async () => {
    const { modules, builtins } = await loaded(['check', 'hello']);
    expect(modules.some((m) => m.includes('/sdk/'))).toBe(true);
    expect(modules.some((m) => m.endsWith('/cli/http-transport.js'))).toBe(true);
    expect(modules.filter((m) => heavy.test(m))).toEqual([]);
    expect(undici(builtins)).toEqual([]);
    expect(builtins).toContain('NativeModule http');
  }, 60_000);

  it('verdict serve on SQLite loads no Redis, PostgreSQL, OCR, diff, progress bar or global fetch module', async () => {
    const { modules, builtins } = await loaded(['serve'], {
      env: {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        VERDICT_IMAGE_PRELOAD: 'false',
        VERDICT_TEXT_WARMUP: 'false',
        LOG_LEVEL: 'warn',
      },
      untilListening: true,
    });
    expect(modules.some((m) => m.includes('/node_modules/fastify/'))).toBe(true);
    expect(
      modules.filter((m) =>
        /\/node_modules\/(pg|ioredis|bullmq|tesseract\.js|diff|cli-progress|onnxruntime-node|@tensorflow)\//.test(
          m,
        ),
      ),
    ).toEqual([]);
    expect(undici(builtins)).toEqual([]);
    // these come from the build's bundles (scripts/bundle-vendor.mjs), not as ~750 separate modules
    const vendored = ['typebox', 'kysely', 'prom-client', 'rate-limiter-flexible'];
    expect(
      modules.filter((m) => /\/node_modules\/(typebox|kysely|prom-client|rate-limiter-flexible)\//.test(m)),
    ).toEqual([]);
    for (const name of vendored)
      expect(modules.some((m) => m.includes(`/dist/vendor/${name}.js`))).toBe(true);
  }, 120_000);

  it('verdict keys list opens SQLite without pg, the SDK or the HTTP server', async () => {
    const { modules } = await loaded(['keys', 'list']);
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(
      modules.filter((m) =>
        /\/node_modules\/(fastify|pg|ioredis|bullmq|yaml|sharp|cli-progress|kysely)\/|\/sdk\//.test(m),
      ),
    ).toEqual([]);
    expect(modules.some((m) => m.includes('/dist/vendor/kysely.js'))).toBe(true);
  }, 60_000);
});

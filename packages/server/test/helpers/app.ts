import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { bootstrap } from '../../src/bootstrap.ts';
import { type Config, loadConfig, type Secrets } from '../../src/config.ts';
import { type AppContext, type ContextOverrides, createContext } from '../../src/context.ts';
import { type Engine, freshDatabase, tempDir } from './databases.ts';

export const ADMIN_KEY = 'vk_test_admin_key_0123456789abcdef';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  adminKey: string;
  /** Creates an account with a key of the given scopes and returns that key. */
  newKey(scopes: string[], accountId?: string): Promise<{ key: string; accountId: string }>;
  request(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    options?: { key?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** The configuration `npm start` would build, pointed at a temp dir and database; `extra` overrides any setting. */
export function testConfig(
  dataDir: string,
  database: Config['database'],
  extra: Partial<Config> = {},
): Config {
  const { config } = loadConfig({ VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  return {
    ...config,
    port: 0,
    publicUrl: 'http://127.0.0.1:8080',
    database,
    shutdownTimeoutMs: 5000,
    imagePreload: false,
    textWarmUp: false,
    ...extra,
  };
}

export async function createTestApp(
  options: {
    engine?: Engine;
    overrides?: ContextOverrides;
    config?: Partial<Config>;
    secrets?: Partial<Secrets>;
  } = {},
): Promise<TestApp> {
  const dataDir = tempDir();
  const db = await freshDatabase(options.engine ?? 'sqlite', dataDir);
  const config = testConfig(dataDir, db.database, options.config);
  const ctx = await createContext(config, { ...options.secrets, bootstrapKey: ADMIN_KEY }, options.overrides);
  await bootstrap(ctx);
  const app = await buildApp(ctx);
  await app.ready();
  const request: TestApp['request'] = async (method, url, opts = {}) => {
    const key = opts.key === undefined ? ADMIN_KEY : opts.key;
    const response = await app.inject({
      method,
      url,
      headers: { ...(key !== null && { authorization: `Bearer ${key}` }), ...opts.headers },
      ...(opts.body !== undefined && { payload: opts.body as object }),
    });
    let body: unknown = response.body;
    try {
      body = response.json();
    } catch {}
    return { status: response.statusCode, body, headers: response.headers };
  };
  return {
    app,
    ctx,
    config,
    adminKey: ADMIN_KEY,
    request,
    async newKey(scopes, accountId) {
      let account = accountId;
      if (!account) {
        const created = await request('POST', '/v1/accounts', { body: { name: 'tenant' } });
        account = created.body.accountId as string;
      }
      const res = await request('POST', '/v1/keys', { body: { name: 'k', scopes, accountId: account } });
      if (res.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(res.body)}`);
      return { key: res.body.key as string, accountId: account };
    },
    async close() {
      // As the service's stop() does after its grace period: requests in flight finish, then what is left is
      // closed. A client's spare connection that never sent a request (undici's pool opens one at times) is not
      // idle to Node's server and held close() until the headers time-out, 60 s.
      const timer = setTimeout(() => app.server.closeAllConnections(), 1000);
      try {
        await app.close();
      } finally {
        clearTimeout(timer);
      }
      await ctx.close();
      await db.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

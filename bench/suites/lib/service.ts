// The compiled service (`npm start`: API and worker in one process) for a suite, through bench/lib/service.ts, with
// an admin key the suite knows, and a small JSON client with a time limit on every request.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type BenchServer, SERVICE, startServer } from '../../lib/service.ts';

export const ADMIN_KEY = 'vk_suite_admin_key_0000000000000000';

export interface Storage {
  db: 'sqlite' | 'postgres';
  /** postgres: the database URL (a fresh schema of it is used) and the Redis URL (its database is flushed). */
  databaseUrl?: string;
  redisUrl?: string;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/wt_chaos';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/9';

/**
 * Environment for a fresh store: SQLite in the data directory, or a new PostgreSQL schema (search_path in the URL)
 * and an emptied Redis database. `cleanup()` drops the schema.
 */
export async function prepareStorage(
  storage: Storage,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (storage.db === 'sqlite') return { env: { DATABASE_URL: '', REDIS_URL: '' }, cleanup: async () => {} };
  const base = storage.databaseUrl ?? DEFAULT_DATABASE_URL;
  const redisUrl = storage.redisUrl ?? DEFAULT_REDIS_URL;
  const schema = `suite_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  await redis.flushdb();
  redis.disconnect();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { DATABASE_URL: url.toString(), REDIS_URL: redisUrl },
    cleanup: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** Starts `verdict serve` (compiled) with the suite's admin key; `env` adds to or overrides the defaults. */
export function startVerdict(
  env: Record<string, string>,
  options: { dataDir?: string; port?: number } = {},
): Promise<BenchServer> {
  return startServer(
    SERVICE,
    {
      VERDICT_BOOTSTRAP_KEY: ADMIN_KEY,
      LOG_LEVEL: 'warn',
      VERDICT_IMAGE_PRELOAD: 'false',
      VERDICT_RATE_LIMITS: 'false',
      VERDICT_REQUEST_LOG_SAMPLE: '0',
      ...env,
    },
    options,
  );
}

export interface JsonAnswer {
  status: number;
  body: any;
}

/** One JSON request with the admin key (or `key`), answered within `timeoutMs` or rejected. */
export async function api(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  options: { key?: string; timeoutMs?: number } = {},
): Promise<JsonAnswer> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.key ?? ADMIN_KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

/** A policy every suite checks against: a few categories with ordinary thresholds. */
export const SUITE_POLICY_YAML = `name: Suite
categories:
  hate: { threshold: 0.7, action: block }
  harassment: { threshold: 0.6, action: flag }
  violence: { threshold: 0.7, action: block }
  spam: { threshold: 0.8, action: warn }
`;

export async function createPolicy(origin: string, policyId: string, key = ADMIN_KEY): Promise<void> {
  const res = await api(
    origin,
    'POST',
    '/v1/policies',
    { policyId, yamlContent: SUITE_POLICY_YAML },
    { key },
  );
  if (res.status >= 300)
    throw new Error(`creating policy ${policyId}: ${res.status} ${JSON.stringify(res.body)}`);
}

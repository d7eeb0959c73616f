import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Tests that start the service or the CLI as a process run the compiled JavaScript that `npm start` runs; the
 * incremental build (a fraction of a second when nothing changed) keeps it current with the sources under test, and
 * the vendor bundling step after it (as `npm run build` does) points files it re-emitted at dist/vendor again.
 */
function buildWorkspace(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-b', path.join(repo, 'tsconfig.build.json')], { stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(repo, 'packages/server/scripts/bundle-vendor.mjs')], {
    stdio: 'ignore',
  });
}

/**
 * PostgreSQL tests each get a fresh schema named with this run's prefix. They are dropped here, once every test file
 * has finished: dropping them file by file raced with other files' catalogue queries (Kysely's migration
 * introspection reads every schema, and fails on one dropped mid-query).
 */
export function setup(): () => Promise<void> {
  buildWorkspace();
  const prefix = `t_${randomBytes(4).toString('hex')}_`;
  process.env.VERDICT_TEST_SCHEMA_PREFIX = prefix;
  return async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ nspname: string }>(
        'SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)',
        [prefix],
      );
      for (const { nspname } of rows) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    } finally {
      await client.end();
    }
  };
}

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { bootstrap } from '../src/bootstrap.ts';
import { createContext } from '../src/context.ts';
import { ADMIN_KEY, testConfig } from './helpers/app.ts';
import { TEST_DATABASE_URL, tempDir } from './helpers/databases.ts';
import { codeBlocks, onPath, REPO, readDoc } from './helpers/docs.ts';
import { callApi, startServerProcess, verdict } from './helpers/process.ts';

const run = promisify(execFile);
const page = readDoc('operating.md');
const section = (heading: string) => {
  const start = page.indexOf(`\n## ${heading}`);
  return page.slice(start, page.indexOf('\n## ', start + 1));
};

describe('docs/operating.md', () => {
  const dirs: string[] = [];
  const dir = (prefix: string) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('lists every setting the service reads (src/config.ts)', () => {
    const source = fs.readFileSync(path.join(REPO, 'packages/server/src/config.ts'), 'utf8');
    const names = new Set(
      [...source.matchAll(/\(env, '([A-Z][A-Z0-9_]+)'/g), ...source.matchAll(/'(VERDICT_[A-Z0-9_]+)'/g)].map(
        (m) => m[1]!,
      ),
    );
    expect(names.size).toBeGreaterThan(20);
    const table = section('Configuration');
    for (const name of names) expect(table, name).toContain(`| \`${name}\` |`);
  });

  it('runs the `verdict` management commands as written, in order', async () => {
    const commands = codeBlocks(section('The `verdict` command'), 'sh')[0]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && line !== 'verdict worker');
    expect(commands.length).toBe(8);
    const env = { VERDICT_DATA_DIR: dir('verdict-docs-cli-') };
    let account = '';
    let key = '';
    for (const command of commands) {
      // `[…]` marks optional options and `a | b` alternatives: run the full form, and the first alternative
      const line = command
        .replace(/\[([^\]]*)\]/g, '$1')
        .replace(/\s\|\s.*$/, '')
        .replaceAll('acc_…', account)
        .replaceAll('key_…', key);
      const args = line.split(/\s+/).slice(1);
      const result = await verdict(args, env);
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      account ||= /acc_[0-9A-Z]+/.exec(result.stdout)?.[0] ?? '';
      if (line.startsWith('verdict keys create')) key = /key_[0-9A-Z]+/.exec(result.stdout)?.[0] ?? '';
    }
    expect(account).toMatch(/^acc_/);
    expect(key).toMatch(/^key_/);
    const listed = await verdict(['keys', 'list', '--json'], env);
    const made = (JSON.parse(listed.stdout) as any[]).find((k) => k.id === key);
    expect(made).toMatchObject({ accountId: account, scopes: ['check', 'decisions:read'] });
    expect(made.revokedAt).not.toBeNull();
  }, 120_000);

  it('backs up a running SQLite service with verdict backup and restores it into a new data directory', async () => {
    const [backup, restore] = codeBlocks(section('Backups'), 'sh')[0]!.split('\n');
    expect(backup).toBe('verdict backup verdict-backup.db');
    expect(restore).toBe('verdict restore verdict-backup.db --force');
    const root = dir('verdict-docs-backup-');
    const file = path.join(root, 'verdict-backup.db');
    const env = { VERDICT_DATA_DIR: path.join(root, 'data'), VERDICT_BOOTSTRAP_KEY: ADMIN_KEY };
    const server = await startServerProcess(env);
    let decisionId: string;
    try {
      const check = await callApi(server.url, ADMIN_KEY, 'POST', '/v1/check', {
        content: 'back me up',
        policyId: 'default',
      });
      decisionId = check.body.decisionId;
      const made = await verdict(['backup', file], env);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toMatch(/^Backed up .*verdict\.db to .*verdict-backup\.db \(\d+ bytes\)\n$/);
      expect((await verdict(['backup', file], env)).code).toBe(2); // exists: not replaced without --force
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const restoredEnv = { VERDICT_DATA_DIR: path.join(dir('verdict-docs-restore-'), 'data') };
    const notBackup = path.join(root, 'not-a-backup.db');
    fs.writeFileSync(notBackup, 'hello');
    expect((await verdict(['restore', notBackup], restoredEnv)).code).toBe(2);
    const restoreArgs = restore!
      .trim()
      .split(/\s+/)
      .slice(1)
      .map((a) => (a === 'verdict-backup.db' ? file : a));
    const restored = await verdict(restoreArgs, restoredEnv);
    expect(restored.code, restored.stderr).toBe(0);
    const again = await startServerProcess(restoredEnv);
    try {
      expect(again.output()).not.toContain('First start'); // the restored keys are there: no new admin key
      const got = await callApi(again.url, ADMIN_KEY, 'GET', `/v1/decisions/${decisionId}`);
      expect(got.status).toBe(200);
      expect(got.body.content).toBe('back me up');
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 120_000);

  it.skipIf(!TEST_DATABASE_URL || !onPath('pg_dump'))(
    'backs up PostgreSQL with pg_dump and restores it with pg_restore, as written',
    async () => {
      const [, , dump, restore] = codeBlocks(section('Backups'), 'sh').flatMap((b) => b.trim().split('\n'));
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      const suffix = randomBytes(4).toString('hex');
      const names = [`verdict_doc_src_${suffix}`, `verdict_doc_dst_${suffix}`];
      const urlOf = (db: string) => {
        const url = new URL(TEST_DATABASE_URL!);
        url.pathname = `/${db}`;
        return url.toString();
      };
      for (const name of names) await admin.query(`CREATE DATABASE ${name}`);
      try {
        const work = dir('verdict-docs-pg-');
        const config = testConfig(work, { kind: 'postgres', url: urlOf(names[0]!) });
        const ctx = await createContext(config, { bootstrapKey: ADMIN_KEY });
        await bootstrap(ctx);
        const app = await buildApp(ctx);
        const check = await app.inject({
          method: 'POST',
          url: '/v1/check',
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
          payload: { content: 'keep me safe', policyId: 'default' },
        });
        await app.close();
        await ctx.close();
        const env = {
          ...process.env,
          DATABASE_URL: urlOf(names[0]!),
          RESTORE_DATABASE_URL: urlOf(names[1]!),
        };
        await run('bash', ['-c', `${dump}\n${restore}`], { cwd: work, env, timeout: 60_000 });
        const restored = new pg.Client({ connectionString: urlOf(names[1]!) });
        await restored.connect();
        const rows = await restored.query('SELECT content FROM decisions WHERE id = $1', [
          check.json().decisionId,
        ]);
        await restored.end();
        expect(rows.rows).toEqual([{ content: 'keep me safe' }]);
      } finally {
        for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      }
    },
    120_000,
  );
  if (!TEST_DATABASE_URL) it('PostgreSQL backup: skipped, TEST_DATABASE_URL is not set', () => {});
});

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import type { Command } from 'commander';
import { configOrExit, UsageError } from './admin.ts';

/**
 * `verdict backup <file>` and `verdict restore <file>`. SQLite: an online, consistent copy through SQLite's backup
 * API while the service runs (a plain file copy can miss the write-ahead log), and a restore into the data directory
 * while the service is stopped. PostgreSQL: `pg_dump` (custom format) when it is installed; restores go through
 * `pg_restore` into an empty database (docs/operating.md).
 */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup <file>')
    .description(
      'Write a consistent copy of the database to <file> (SQLite: while the service runs; PostgreSQL: pg_dump)',
    )
    .option('--force', 'replace <file> if it exists')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { config } = configOrExit();
      if (fs.existsSync(file) && !opts.force)
        throw new UsageError(`${file} exists; pass --force to replace it`);
      if (config.database.kind === 'postgres') {
        await pgDump(config.database.url, file);
        process.stdout.write(
          `Backed up PostgreSQL to ${file} (pg_dump custom format; restore with pg_restore)\n`,
        );
        return;
      }
      const { default: SQLite } = await import('better-sqlite3');
      const source = new SQLite(config.database.file, { readonly: true, fileMustExist: true });
      try {
        fs.rmSync(file, { force: true });
        await source.backup(file);
      } finally {
        source.close();
      }
      process.stdout.write(
        `Backed up ${config.database.file} to ${file} (${fs.statSync(file).size} bytes)\n`,
      );
    });

  program
    .command('restore <file>')
    .description('Replace the SQLite database with a backup (stop the service first)')
    .option('--force', 'replace an existing database')
    .action(async (file: string, opts: { force?: boolean }) => {
      const { config } = configOrExit();
      if (config.database.kind === 'postgres') {
        throw new UsageError(
          'with DATABASE_URL, restore a pg_dump backup with pg_restore (see docs/operating.md)',
        );
      }
      const { default: SQLite } = await import('better-sqlite3');
      let backup: InstanceType<typeof SQLite>;
      try {
        backup = new SQLite(file, { readonly: true, fileMustExist: true });
        const tables = backup.prepare(
          "select count(*) from sqlite_master where type = 'table' and name in ('decisions', 'accounts')",
        );
        if (tables.pluck().get() !== 2) throw new Error('it holds no Verdict database');
      } catch (error) {
        throw new UsageError(`${file} is not a Verdict backup: ${(error as Error).message}`);
      }
      const target = config.database.file;
      try {
        if (fs.existsSync(target) && !opts.force) {
          throw new UsageError(`${target} exists; stop the service and pass --force to replace it`);
        }
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
        await backup.backup(target);
      } finally {
        backup.close();
      }
      process.stdout.write(`Restored ${file} to ${target}; start the service\n`);
    });
}

function pgDump(url: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('pg_dump', ['--format=custom', `--file=${file}`, url], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', (error) =>
      reject(
        new UsageError(
          `pg_dump could not run (${(error as NodeJS.ErrnoException).code}); install PostgreSQL's client tools`,
        ),
      ),
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_dump exited with ${code}`))));
  });
}

import fs from 'node:fs';
import type { Command } from 'commander';
import { Option } from 'commander';
import { type Config, ConfigError, loadConfig, parseDuration, type Secrets } from '../config.ts';
import type { AppContext } from '../context.ts';
import { accountView } from '../domain/accounts.ts';
import { keyView } from '../domain/keys.ts';
import { SCOPES } from '../domain/principal.ts';

/** Bad usage or input of an administrative command: exit 2, like commander's own usage errors. */
export class UsageError extends Error {}

/** The process's configuration, or exit 2 with the setting at fault named. */
export function configOrExit(): { config: Config; secrets: Secrets } {
  try {
    const loaded = loadConfig();
    ensureDataDir(loaded.config.dataDir);
    return loaded;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`verdict: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** The data directory exists (it is created) and is writable: checked at start, named in the error. */
function ensureDataDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (error) {
    throw new ConfigError(
      'VERDICT_DATA_DIR',
      `cannot create or write ${dir} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
}

/** What the administrative commands use: the database and the account and key services, nothing else. */
export type AdminContext = Pick<AppContext, 'config' | 'secrets' | 'accounts' | 'keys'>;

/**
 * Runs an administrative command directly against the configured database. It opens only the database (migrated)
 * and the account and key services: no models, worker pool, queue or Redis, loaded on demand, so that `verdict
 * --help` and the client commands do not load any of it.
 */
export async function withContext<T>(fn: (ctx: AdminContext) => Promise<T>): Promise<T> {
  const { config, secrets } = configOrExit();
  const [
    { migrateToLatest, openDatabase },
    { AccountRepository },
    { ApiKeyRepository },
    { AccountService },
    { KeyService },
    { bootstrap },
    { AuditLog },
    { AuditRepository },
  ] = await Promise.all([
    import('../storage/database.ts'),
    import('../storage/repositories/accounts.ts'),
    import('../storage/repositories/api-keys.ts'),
    import('../domain/accounts.ts'),
    import('../domain/keys.ts'),
    import('../bootstrap.ts'),
    import('../audit/audit-log.ts'),
    import('../audit/repository.ts'),
  ]);
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
    const accountRepo = new AccountRepository(database.db);
    // the CLI's key and account changes are audit entries too, by the operator (actor kind `operator`)
    const audit = new AuditLog(new AuditRepository(database.db));
    const ctx: AdminContext = {
      config,
      secrets,
      accounts: new AccountService(accountRepo, audit),
      keys: new KeyService(new ApiKeyRepository(database.db), accountRepo, audit),
    };
    await bootstrap(ctx, { issueFirstKey: false }); // the first start of the service prints the first key
    return await fn(ctx);
  } finally {
    await database.close();
  }
}

function print(value: unknown, json: boolean, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

function parseExpiry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(value);
  if (ms === 0) throw new UsageError(`--expires: the duration must be positive, got "${value}"`);
  if (ms !== null) return new Date(Date.now() + ms).toISOString();
  if (Number.isNaN(Date.parse(value)))
    throw new UsageError(`--expires: expected a duration (30d, 12h) or an ISO date, got "${value}"`);
  return new Date(value).toISOString();
}

function parseQuota(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none' || value === 'unlimited') return null;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--quota: expected a non-negative integer or "none", got "${value}"`);
  return Number(value);
}

/** `verdict keys …` and `verdict accounts …`: administrative commands run directly against the database. */
export function registerAdminCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');
  keys
    .command('create')
    .description('Create an API key; it is printed once')
    .option('--account <accountId>', 'account that owns the key (default: the operator account)')
    .requiredOption('--scopes <list>', `comma-separated: ${SCOPES.join(', ')}`)
    .option('--name <name>', 'a label for the key', 'cli')
    .option('--expires <when>', 'a duration from now (30d, 12h) or an ISO 8601 date')
    .option('--per-minute <n>', 'sustained rate limit per 60 s for this key')
    .option('--burst <n>', 'burst limit per second for this key')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      await withContext(async (ctx) => {
        const accountId = opts.account ?? (await ctx.accounts.findOperator())!.accountId;
        const rateLimit =
          opts.perMinute || opts.burst
            ? {
                perMinute: Number(opts.perMinute ?? ctx.config.rateLimit.perMinute),
                burstPerSecond: Number(opts.burst ?? ctx.config.rateLimit.burstPerSecond),
              }
            : undefined;
        const { key, record } = await ctx.keys.create(null, {
          name: opts.name,
          scopes: String(opts.scopes)
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          accountId,
          expiresAt: parseExpiry(opts.expires),
          rateLimit,
        });
        print({ ...keyView(record), key }, opts.json, () =>
          [
            `Created ${record.id} for ${record.accountId} [${record.scopes.join(', ')}]${record.expiresAt ? `, expires ${record.expiresAt}` : ''}`,
            '',
            `  ${key}`,
            '',
            'The key is shown only once.',
          ].join('\n'),
        );
      });
    });
  keys
    .command('list')
    .description('List API keys (never the keys themselves)')
    .option('--account <accountId>', 'only this account')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      await withContext(async (ctx) => {
        const list = (await ctx.keys.list(null, opts.account)).map(keyView);
        print(list, opts.json, () =>
          list.length === 0
            ? 'No keys'
            : list
                .map(
                  (k) =>
                    `${k.id}  ${k.prefix}…${k.last4}  ${k.accountId}  ${k.name}  [${k.scopes.join(',')}]${k.revokedAt ? '  revoked' : ''}${k.expiresAt ? `  expires ${k.expiresAt}` : ''}`,
                )
                .join('\n'),
        );
      });
    });
  keys
    .command('update <keyId>')
    .description('Rename a key or set its rate limits (--default-limits restores the service defaults)')
    .option('--name <name>', 'a new label')
    .option('--per-minute <n>', 'sustained rate limit per 60 s')
    .option('--burst <n>', 'burst limit per second')
    .option('--default-limits', 'remove the per-key override')
    .option('--json', 'print JSON')
    .action(async (keyId, opts) => {
      await withContext(async (ctx) => {
        let rateLimit: { perMinute: number; burstPerSecond: number } | null | undefined;
        if (opts.defaultLimits) rateLimit = null;
        else if (opts.perMinute || opts.burst) {
          const current = (await ctx.keys.get(null, keyId)).rateLimit;
          rateLimit = {
            perMinute: Number(opts.perMinute ?? current?.perMinute ?? ctx.config.rateLimit.perMinute),
            burstPerSecond: Number(
              opts.burst ?? current?.burstPerSecond ?? ctx.config.rateLimit.burstPerSecond,
            ),
          };
        }
        const record = await ctx.keys.update(null, keyId, { name: opts.name, rateLimit });
        print(
          keyView(record),
          opts.json,
          () =>
            `Updated ${record.id}: ${record.rateLimit ? `${record.rateLimit.perMinute}/min, burst ${record.rateLimit.burstPerSecond}/s` : 'service default limits'}`,
        );
      });
    });
  keys
    .command('revoke <keyId>')
    .description('Revoke an API key at once')
    .option('--json', 'print JSON')
    .action(async (keyId, opts) => {
      await withContext(async (ctx) => {
        const record = await ctx.keys.revoke(null, keyId);
        print({ id: record.id, revoked: true }, opts.json, () => `Revoked ${record.id}`);
      });
    });

  const accounts = program.command('accounts').description('Manage accounts');
  accounts
    .command('create')
    .description('Create an account')
    .requiredOption('--name <name>', 'account name')
    .option('--quota <n>', 'monthly quota of evaluations, or "none"')
    .option('--trial-ends <iso>', 'end of the free trial (ISO 8601)')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      await withContext(async (ctx) => {
        const account = await ctx.accounts.create({
          name: opts.name,
          monthlyQuota: parseQuota(opts.quota),
          trialEndsAt: opts.trialEnds,
        });
        print(accountView(account), opts.json, () => `Created ${account.accountId} (${account.name})`);
      });
    });
  accounts
    .command('list')
    .description('List accounts')
    .option('--json', 'print JSON')
    .action(async (opts) => {
      await withContext(async (ctx) => {
        const operator = await ctx.accounts.findOperator();
        const list = (
          await ctx.accounts.list(
            {
              keyId: 'cli',
              accountId: operator!.accountId,
              isOperator: true,
              scopes: new Set(['admin']),
              rateLimit: null,
              account: { monthlyQuota: null, trialEndsAt: null },
            },
            1000,
            0,
          )
        ).map((a) => accountView(a));
        print(list, opts.json, () =>
          list
            .map(
              (a) =>
                `${a.accountId}  ${a.name}  quota=${a.monthlyQuota ?? 'none'}  trialEndsAt=${a.trialEndsAt ?? '-'}${a.isOperator ? '  (operator)' : ''}`,
            )
            .join('\n'),
        );
      });
    });
  accounts
    .command('update <accountId>')
    .description("Update an account's name, quota or trial end")
    .option('--name <name>', 'new name')
    .option('--quota <n>', 'monthly quota, or "none"')
    .addOption(new Option('--trial-ends <iso>', 'end of the free trial (ISO 8601), or "none"'))
    .option('--json', 'print JSON')
    .action(async (accountId, opts) => {
      await withContext(async (ctx) => {
        const account = await ctx.accounts.update(null, accountId, {
          name: opts.name,
          monthlyQuota: parseQuota(opts.quota),
          trialEndsAt: opts.trialEnds === 'none' ? null : opts.trialEnds,
        });
        print(accountView(account), opts.json, () => `Updated ${account.accountId} (${account.name})`);
      });
    });
}

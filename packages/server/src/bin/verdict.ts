import fs from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { bootstrap } from '../bootstrap.ts';
import { registerClientCommands } from '../cli/index.ts';
import { type Config, ConfigError, loadConfig, parseDuration, type Secrets } from '../config.ts';
import { type AppContext, createContext } from '../context.ts';
import { accountView } from '../domain/accounts.ts';
import { isAppError } from '../domain/errors.ts';
import { keyView } from '../domain/keys.ts';
import { jsonLogger } from '../jobs/logger.ts';
import { startWorker } from '../jobs/worker.ts';
import { LocalTextProvider } from '../providers/local-text.ts';
import { startServer } from '../server.ts';
import { migrateToLatest, openDatabase } from '../storage/database.ts';

function configOrExit(): { config: Config; secrets: Secrets } {
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

/**
 * A start-up failure caused by a setting, as a message naming it (the address to listen on, the database), or
 * null for anything else.
 */
function settingAtFault(error: unknown, config: Config): string | null {
  const e = error as NodeJS.ErrnoException & { hostname?: string; syscall?: string };
  if (e.syscall === 'listen' || (e.syscall === 'getaddrinfo' && e.hostname === config.host)) {
    if (e.code === 'EADDRINUSE') return `Invalid PORT: ${config.port} is already in use`;
    if (e.code === 'EACCES') return `Invalid PORT: no permission to listen on ${config.port}`;
    return `Invalid HOST: cannot listen on ${config.host} (${e.code})`;
  }
  if (config.database.kind === 'postgres' && typeof e.code === 'string' && /^(E[A-Z]+|28|3D)/.test(e.code))
    return `Invalid DATABASE_URL: cannot connect to the database (${e.code}: ${e.message})`;
  return null;
}

/** Runs an administrative command directly against the configured database. */
async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const { config, secrets } = configOrExit();
  // Administrative commands neither evaluate content nor pass through rate limits: start neither the image model's
  // worker pool, nor the text model's warm-up, nor a rate-limit Redis connection for them.
  const ctx = await createContext(
    {
      ...config,
      imagePreload: false,
      textWarmUp: false,
      rateLimit: { ...config.rateLimit, enabled: false },
    },
    secrets,
  );
  try {
    await bootstrap(ctx, { issueFirstKey: false }); // the first start of the service prints the first key
    return await fn(ctx);
  } finally {
    await ctx.close();
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

// Files the service writes (the SQLite database and its WAL, uploads, evidence frames) are its own: the database
// holds webhook secrets and the evidence signing key.
process.umask(0o077);

/** Bad usage or input of an administrative command: exit 2, like commander's own usage errors. */
class UsageError extends Error {}

const program = new Command('verdict')
  .description('Verdict: self-hosted content decisions. Settings come from the environment (see README).')
  .showHelpAfterError()
  // usage errors (unknown option, missing argument) are thrown, so that they exit 2, not commander's 1; set before
  // the commands are added, which inherit it
  .exitOverride();

program
  .command('serve', { isDefault: true })
  .description('Start the API and background worker in one process (the default command)')
  .option('--no-worker', 'API only; run `verdict worker` processes for background jobs (scaled out)')
  .action(async (opts: { worker: boolean }) => {
    const { config, secrets } = configOrExit();
    const server = await startServer(config, secrets, { worker: opts.worker }).catch((error: unknown) => {
      const message = settingAtFault(error, config);
      if (message === null) throw error;
      process.stderr.write(`verdict: ${message}\n`);
      process.exit(2);
    });
    const log = server.app.log;
    const text = server.ctx.providers.get('text');
    if (text instanceof LocalTextProvider && text.warmUpMs !== null)
      log.info({ ms: Math.round(text.warmUpMs) }, 'text model warmed up');
    if (config.allowPrivateUrls)
      log.warn('VERDICT_ALLOW_PRIVATE_URLS is on: URLs may reach private addresses');
    process.stdout.write(`Verdict listening on ${server.url} (public URL ${config.publicUrl})\n`);
    process.stdout.write(
      `Storage: ${config.database.kind === 'sqlite' ? config.database.file : 'PostgreSQL'}\n`,
    );
    if (server.firstKey) {
      process.stdout.write(
        // the key as a line to paste into a shell, so that the README's commands (which use $VERDICT_API_KEY) work
        `\nFirst start: created an admin API key. It is shown only once; keep it safe:\n\n  export VERDICT_API_KEY=${server.firstKey}\n\n` +
          `Try: curl -s ${config.publicUrl}/v1/check -H "Authorization: Bearer $VERDICT_API_KEY" ` +
          `-H 'Content-Type: application/json' -d '{"content":"hello world","policyId":"default"}'\n\n`,
      );
    }
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        log.info({ signal }, 'shutting down: finishing in-flight requests');
        server.stop().then(
          () => process.exit(0),
          (error) => {
            log.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  });

program
  .command('worker')
  .description(
    'Run only the background worker (webhook deliveries, async batches), for scaled-out deployments',
  )
  .action(async () => {
    const { config, secrets } = configOrExit();
    const log = jsonLogger(config.logLevel, { role: 'worker' });
    const ctx = await createContext(config, secrets);
    const worker = startWorker(ctx, { log });
    log.info({ queue: ctx.queue.kind }, 'worker started');
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        log.info({ signal }, 'shutting down: draining running jobs');
        worker
          .stop({ timeoutMs: config.shutdownTimeoutMs })
          .then(() => ctx.close())
          .then(
            () => process.exit(0),
            (error) => {
              log.error({ err: error }, 'shutdown failed');
              process.exit(1);
            },
          );
      });
    }
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit')
  .action(async () => {
    const { config } = configOrExit();
    const handle = openDatabase(config.database);
    try {
      const applied = await migrateToLatest(handle);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
    } finally {
      await handle.close();
    }
  });

const keys = program.command('keys').description('Manage API keys');
keys
  .command('create')
  .description('Create an API key; it is printed once')
  .option('--account <accountId>', 'account that owns the key (default: the operator account)')
  .requiredOption(
    '--scopes <list>',
    'comma-separated: check, policies:read, policies:write, decisions:read, webhooks:read, webhooks:write, admin',
  )
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

registerClientCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // commander has printed its message (or the help): --help and --version succeed, the rest is bad usage
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  if (error instanceof UsageError) {
    process.stderr.write(`verdict: ${error.message}\n`);
    process.exit(2);
  }
  if (isAppError(error)) {
    process.stderr.write(`verdict: ${error.code}: ${error.message}\n`);
  } else {
    process.stderr.write(`verdict: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});

import { Command, CommanderError } from 'commander';
import { configOrExit, registerAdminCommands, UsageError } from '../cli/admin.ts';
import { registerBackupCommands } from '../cli/backup.ts';
import { registerClientCommands } from '../cli/index.ts';
import { type Config, ConfigError } from '../config.ts';
import { isAppError } from '../domain/errors.ts';

// The service's modules (Fastify, the database, the models) are imported by the commands that need them, so that
// `verdict --help` and the client commands (which only talk HTTP) start in a fraction of a second.

/**
 * A start-up failure caused by a setting, as a message naming it (the address to listen on, the database), or
 * null for anything else.
 */
function settingAtFault(error: unknown, config: Config): string | null {
  // a setting found wrong only while starting (e.g. an image classifier that does not match its manifest)
  if (error instanceof ConfigError) return error.message;
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

// Files the service writes (the SQLite database and its WAL, uploads, evidence frames) are its own: the database
// holds webhook secrets and the evidence signing key.
process.umask(0o077);

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
    const exitOnSetting = (error: unknown): never => {
      const message = settingAtFault(error, config);
      if (message === null) throw error;
      process.stderr.write(`verdict: ${message}\n`);
      process.exit(2);
    };
    // The image model's workers start before the service's modules are loaded (seconds of this thread), so that
    // they load the model on another core meanwhile; it used to start after the text model's warm-up.
    const imageModel = config.imagePreload
      ? await import('../providers/local-image/configured.ts')
          .then(({ startImageModel }) => startImageModel(config))
          .catch(exitOnSetting)
      : undefined;
    const [{ startServer }, { LocalTextProvider }] = await Promise.all([
      import('../server.ts'),
      import('../providers/local-text.ts'),
    ]);
    const server = await startServer(config, secrets, {
      worker: opts.worker,
      started: { ...(imageModel && { imageModel }) },
    }).catch(exitOnSetting);
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
    const [{ jsonLogger }, { createContext }, { startWorker }] = await Promise.all([
      import('../jobs/logger.ts'),
      import('../context.ts'),
      import('../jobs/worker.ts'),
    ]);
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
    const { migrateToLatest, openDatabase } = await import('../storage/database.ts');
    const handle = openDatabase(config.database);
    try {
      const applied = await migrateToLatest(handle);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
    } finally {
      await handle.close();
    }
  });

registerAdminCommands(program);
registerBackupCommands(program);
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

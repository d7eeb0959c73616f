import type { FastifyInstance } from 'fastify';
import { type AppState, buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import type { Config, Secrets } from './config.ts';
import { type AppContext, type ContextOverrides, createContext } from './context.ts';

export interface RunningServer {
  app: FastifyInstance & { state: AppState };
  ctx: AppContext;
  url: string;
  firstKey: string | null;
  stop(): Promise<void>;
}

/** Starts the API (and, with later modules, the worker) in this process. */
export async function startServer(
  config: Config,
  secrets: Secrets,
  options: { overrides?: ContextOverrides; logger?: boolean | object } = {},
): Promise<RunningServer> {
  const ctx = await createContext(config, secrets, options.overrides);
  const { firstKey } = await bootstrap(ctx);
  const logger =
    options.logger ??
    ({
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers["idempotency-key"]'], remove: true },
    } as object);
  const app = await buildApp(ctx, { logger });
  const address = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | null = null;
  return {
    app,
    ctx,
    url: address,
    firstKey,
    stop() {
      stopping ??= (async () => {
        app.state.shuttingDown = true;
        const timer = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
        try {
          await app.close(); // stops accepting, waits for in-flight requests to finish
        } finally {
          clearTimeout(timer);
          await ctx.close();
        }
      })();
      return stopping;
    },
  };
}

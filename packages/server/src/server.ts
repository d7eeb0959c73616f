import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AppState, buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import type { Config, Secrets } from './config.ts';
import { type AppContext, type ContextOverrides, createContext, type StartedParts } from './context.ts';
import { type RunningWorker, startWorker } from './jobs/worker.ts';
import { BufferedStdout } from './logging/buffered-stdout.ts';

export interface RunningServer {
  app: FastifyInstance & { state: AppState };
  ctx: AppContext;
  url: string;
  firstKey: string | null;
  /** The background worker, unless started with `worker: false` (API-only, scaled out). */
  worker: RunningWorker | null;
  stop(): Promise<void>;
}

/** Starts the API and, unless `worker: false`, the background worker in this process. */
export async function startServer(
  config: Config,
  secrets: Secrets,
  options: {
    overrides?: ContextOverrides;
    logger?: boolean | object;
    worker?: boolean;
    /** See StartedParts: the image model's pool, already loading. */
    started?: StartedParts;
  } = {},
): Promise<RunningServer> {
  const ctx = await createContext(config, secrets, options.overrides, options.started);
  const { firstKey } = await bootstrap(ctx);
  const logger = options.logger ?? { ...loggerOptions(config), stream: new BufferedStdout() };
  const app = await buildApp(ctx, { logger, requestLogSample: config.requestLogSample ?? 1 });
  const address = await app.listen({ port: config.port, host: config.host });
  const worker = options.worker === false ? null : startWorker(ctx, { log: app.log });
  let stopping: Promise<void> | null = null;
  return {
    app,
    ctx,
    url: address,
    firstKey,
    worker,
    stop() {
      stopping ??= (async () => {
        app.state.shuttingDown = true;
        const timer = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
        try {
          await app.close(); // stops accepting, waits for in-flight requests to finish
        } finally {
          clearTimeout(timer);
          // Drains running jobs (webhook deliveries, batch chunks); what does not finish in time is handed back.
          await worker?.stop({ timeoutMs: config.shutdownTimeoutMs }).catch(() => {});
          await ctx.close();
        }
      })();
      return stopping;
    },
  };
}

/** The service's log settings: JSON lines without keys, secrets or evidence tokens. */
export function loggerOptions(config: Pick<Config, 'logLevel'>): object {
  return {
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers["idempotency-key"]', 'req.headers["x-goog-api-key"]'],
      remove: true,
    },
    serializers: { req: requestForLog },
  };
}

/** A request URL for logs: evidence tokens and `?key=` (Perspective-style API keys) replaced. */
export function redactRequestUrl(url: string): string {
  return url
    .replace(/\/evidence\/[^?#/]*/gi, '/evidence/[token]')
    .replace(/([?&]key=)[^&#]*/gi, '$1[redacted]');
}

/**
 * What a request log line shows of the request: Fastify's default fields, with an evidence token (a capability:
 * whoever has it can fetch the frame until it expires) replaced by `[token]`.
 */
function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactRequestUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

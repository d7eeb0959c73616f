import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import { clientErrorHandler } from './api/client-errors.ts';
import { lazySerializers } from './api/lazy-serializers.ts';
import { registerAuth } from './api/plugins/auth.ts';
import { registerErrorHandling, sendError } from './api/plugins/errors.ts';
import { registerIdempotency } from './api/plugins/idempotency.ts';
import { registerJsonBodies } from './api/plugins/json-body.ts';
import { registerNulGuard } from './api/plugins/nul-guard.ts';
import { registerRateLimits } from './api/plugins/rate-limit.ts';
import { openaiCompatRoutes } from './api/routes/compat/openai.ts';
import { perspectiveRoutes } from './api/routes/compat/perspective.ts';
import { dashboardSessionRoutes } from './api/routes/dashboard/session.ts';
import { registerConsoleStatic } from './api/routes/dashboard/static.ts';
import { healthRoutes } from './api/routes/health.ts';
import { metricsRoutes, registerHttpMetrics } from './api/routes/metrics.ts';
import { adminRoutes } from './api/routes/v1/admin.ts';
import { auditRoutes } from './api/routes/v1/audit.ts';
import { backtestRoutes } from './api/routes/v1/backtests.ts';
import { bankRoutes } from './api/routes/v1/banks.ts';
import { batchRoutes } from './api/routes/v1/batch.ts';
import { checkRoutes } from './api/routes/v1/checks.ts';
import { decisionRoutes } from './api/routes/v1/decisions.ts';
import { listRoutes } from './api/routes/v1/lists.ts';
import { multimodalRoutes } from './api/routes/v1/multimodal.ts';
import { policyRoutes } from './api/routes/v1/policies.ts';
import { policyLifecycleRoutes } from './api/routes/v1/policy-lifecycle.ts';
import { providerRoutes } from './api/routes/v1/providers.ts';
import { qualityRoutes } from './api/routes/v1/quality.ts';
import { reviewRoutes } from './api/routes/v1/review.ts';
import { statsRoutes } from './api/routes/v1/stats.ts';
import { usageRoutes } from './api/routes/v1/usage.ts';
import { videoRoutes } from './api/routes/v1/video.ts';
import { webhookRoutes } from './api/routes/v1/webhooks.ts';
import { Account, ApiKey, Policy } from './api/schemas/admin.ts';
import { AuditEntry } from './api/schemas/audit.ts';
import { Backtest, ChangeReport, Shadow } from './api/schemas/backtests.ts';
import { Bank, BankItem, BankMatch } from './api/schemas/banks.ts';
import { CheckResult, Decision } from './api/schemas/checks.ts';
import { ErrorBody } from './api/schemas/common.ts';
import { List, ListEntry, ListMatch } from './api/schemas/lists.ts';
import { Appeal, HumanReview, QueueItem, Statement } from './api/schemas/review.ts';
import { Webhook } from './api/schemas/webhooks.ts';
import type { AppContext } from './context.ts';
import { newId } from './domain/ids.ts';
import { RequestLogController } from './logging/request-log.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** With a logger: the share of successful requests that get their (one) log line; failures always do. */
  requestLogSample?: number;
  /** The built console (default: packages/console/dist); tests point it elsewhere. */
  consoleDir?: string;
}

export interface AppState {
  shuttingDown: boolean;
}

/** Builds the HTTP API on a context. Does not listen: the caller decides (server, tests, benchmarks). */
export async function buildApp(
  ctx: AppContext,
  options: AppOptions = {},
): Promise<FastifyInstance & { state: AppState }> {
  const app = Fastify({
    logger: options.logger ?? false,
    // one line per request, when it completes, instead of Fastify's two; successes sampled
    logController: new RequestLogController(options.requestLogSample ?? 1),
    genReqId: () => newId('req'),
    bodyLimit: 1024 * 1024,
    // a request (headers and body) must arrive within two minutes (a 100 MB upload at 1 MB/s): slow-body clients
    // cannot hold sockets for ever (Fastify's default is no limit)
    requestTimeout: 120_000,
    // `/v1/policies/` is `/v1/policies`; an ID of any length reaches its route (and its 404), not a bare 414
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 },
    clientErrorHandler,
    // A URL the router cannot decode (bad percent-encoding) gets the error shape and a request ID too
    frameworkErrors: (error, request, reply) => {
      // (the onSend hooks do not run for these)
      commonHeaders(reply, request.id);
      sendError(reply, request, 'INVALID_PARAMETER', 'The URL is not valid (bad percent-encoding)', {
        reason: error.code,
      });
    },
    // Bodies are validated by the domain, which owns the spec's error codes and is shared with batches and the
    // CLI; route schemas describe them for the OpenAPI document and type the handlers.
    schemaErrorFormatter: (errors) => new Error(errors[0]?.message ?? 'invalid'),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(() => () => true);
  // JSON only: a text/plain body would reach the handlers as a string (and fail as "content is required")
  app.removeContentTypeParser('text/plain');
  registerJsonBodies(app);
  registerNulGuard(app);
  const state: AppState = { shuttingDown: false };

  for (const schema of [ErrorBody, CheckResult, Decision, Policy, ApiKey, Account]) app.addSchema(schema);
  app.addSchema(Webhook);
  app.addSchema(AuditEntry);
  for (const schema of [BankMatch, Bank, BankItem]) app.addSchema(schema);
  for (const schema of [ChangeReport, Backtest, Shadow]) app.addSchema(schema);
  for (const schema of [ListMatch, List, ListEntry]) app.addSchema(schema);
  for (const schema of [HumanReview, QueueItem, Appeal, Statement]) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Verdict',
        version: '1.0.0',
        description:
          'Self-hosted content decisions: text, images and video scored against YAML policies. ' +
          'Errors are `{ error: { code, message, details?, requestId } }`; every response has `X-Request-Id`.',
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          googleKey: { type: 'apiKey', in: 'query', name: 'key' },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.addHook('onSend', async (request, reply, payload) => {
    commonHeaders(reply, request.id);
    // While draining, tell keep-alive clients to go away so shutdown need not wait for idle sockets to time out.
    // And when answering before the request's body was read to its end (a multipart form refused at its 26th
    // part): Node leaves a body it started to read paused, so the connection's next request would never be read
    // (`complete` is undefined for injected requests, which have no connection).
    if (state.shuttingDown || request.raw.complete === false) reply.header('connection', 'close');
    return payload;
  });
  registerHttpMetrics(app, ctx);
  registerErrorHandling(app);
  registerAuth(app, ctx);
  registerRateLimits(app, ctx);
  registerIdempotency(app, ctx);

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  await app.register(healthRoutes(ctx, state));
  await app.register(metricsRoutes(ctx));
  await app.register(checkRoutes(ctx));
  await app.register(multimodalRoutes(ctx));
  await app.register(policyRoutes(ctx));
  await app.register(policyLifecycleRoutes(ctx));
  await app.register(backtestRoutes(ctx));
  await app.register(decisionRoutes(ctx));
  await app.register(adminRoutes(ctx));
  await app.register(usageRoutes(ctx));
  await app.register(auditRoutes(ctx));
  await app.register(batchRoutes(ctx));
  await app.register(webhookRoutes(ctx));
  await app.register(videoRoutes(ctx));
  await app.register(bankRoutes(ctx));
  await app.register(listRoutes(ctx));
  await app.register(providerRoutes(ctx));
  await app.register(openaiCompatRoutes(ctx));
  await app.register(perspectiveRoutes(ctx));
  await app.register(statsRoutes(ctx));
  await app.register(reviewRoutes(ctx));
  await app.register(qualityRoutes(ctx));
  await app.register(dashboardSessionRoutes(ctx));
  await registerConsoleStatic(app, options.consoleDir);

  return Object.assign(app, { state }) as unknown as FastifyInstance & { state: AppState };
}

/** Headers of every answer: its request ID, and no type sniffing (a submitted text echoed back never runs as HTML). */
function commonHeaders(reply: FastifyReply, requestId: string): void {
  reply.header('x-request-id', requestId);
  reply.header('x-content-type-options', 'nosniff');
}

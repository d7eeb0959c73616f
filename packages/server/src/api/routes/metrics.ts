import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../domain/errors.ts';
import { hasScope } from '../../domain/principal.ts';
import { bearer } from '../plugins/auth.ts';

/** `GET /metrics`: Prometheus text, for an admin key or the VERDICT_METRICS_TOKEN bearer token. */
export const metricsRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      await authorize(ctx, request);
      const body = await ctx.metrics.registry.metrics();
      return reply.header('content-type', ctx.metrics.registry.contentType).send(body);
    });
  };

async function authorize(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const presented = bearer(request);
  if (!presented)
    throw new AppError('MISSING_API_KEY', 'Send an admin key or the metrics token as a Bearer token');
  const token = ctx.secrets.metricsToken;
  if (token && equal(presented, token)) return;
  const result = await ctx.keys.verify(presented);
  if (!result.ok) throw new AppError(result.code, 'The API key or metrics token is not valid');
  if (!hasScope(result.principal, 'admin')) {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'Metrics need an admin key or the metrics token', {
      scope: 'admin',
    });
  }
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Counts and times every answered request by its route pattern (never the raw URL: IDs would explode labels). */
export function registerHttpMetrics(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      route: request.routeOptions.url ?? 'unmatched',
      method: request.method,
      status: String(reply.statusCode),
    };
    ctx.metrics.httpRequests.inc(labels);
    ctx.metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}

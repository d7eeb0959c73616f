import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';

const Readiness = Type.Object({
  status: Type.String(),
  checks: Type.Record(Type.String(), Type.Boolean()),
  providers: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Circuit state of each external provider: closed, open or half_open',
    }),
  ),
});

export const healthRoutes =
  (ctx: AppContext, state: { shuttingDown: boolean }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/healthz',
      {
        config: { public: true },
        schema: {
          tags: ['operations'],
          summary: 'Liveness',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    // Until the web console serves `/`, the root sends a browser (or curl -L) to the API reference.
    app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
      reply.redirect('/docs', 302),
    );

    app.get(
      '/readyz',
      {
        config: { public: true },
        schema: {
          tags: ['operations'],
          summary: 'Readiness: storage, queue and models',
          response: {
            200: Readiness,
            503: Readiness,
          },
        },
      },
      async (_request, reply) => {
        const checks = { ...(await ctx.readiness()), accepting: !state.shuttingDown };
        const ready = Object.values(checks).every(Boolean);
        // an external provider's open circuit does not make the service unready (fallbacks answer): shown apart
        const external = ctx.providers.external();
        return reply.code(ready ? 200 : 503).send({
          status: ready ? 'ready' : 'unavailable',
          checks,
          ...(external.length > 0 && {
            providers: Object.fromEntries(external.map((p) => [p.name, p.health?.().state ?? 'closed'])),
          }),
        });
      },
    );
  };

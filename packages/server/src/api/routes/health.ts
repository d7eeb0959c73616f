import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';

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
            200: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.Boolean()) }),
            503: Type.Object({ status: Type.String(), checks: Type.Record(Type.String(), Type.Boolean()) }),
          },
        },
      },
      async (_request, reply) => {
        const checks = { ...(await ctx.readiness()), accepting: !state.shuttingDown };
        const ready = Object.values(checks).every(Boolean);
        return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks });
      },
    );
  };

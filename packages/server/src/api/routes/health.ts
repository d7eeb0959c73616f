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
  imageWorkers: Type.Optional(
    Type.Object(
      { loaded: Type.Integer(), total: Type.Integer() },
      {
        description:
          "The image model's worker threads that have loaded it, of VERDICT_IMAGE_WORKERS. Images are ready once one " +
          'has: the first loads alone, the others after it while the service answers',
      },
    ),
  ),
  imageClassifiers: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        "The operator's ONNX image classifiers (VERDICT_IMAGE_CLASSIFIERS) by name, with the state of the image " +
        'workers that run them: idle (loaded on first use), starting, ready, failed or closed',
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
        const pool = ctx.imageModel;
        return reply.code(ready ? 200 : 503).send({
          status: ready ? 'ready' : 'unavailable',
          checks,
          ...(external.length > 0 && {
            providers: Object.fromEntries(external.map((p) => [p.name, p.health?.().state ?? 'closed'])),
          }),
          ...(pool && { imageWorkers: { loaded: pool.readyWorkers, total: pool.size } }),
          ...(pool &&
            pool.classifiers.length > 0 && {
              imageClassifiers: Object.fromEntries(pool.classifiers.map((c) => [c.name, pool.state])),
            }),
        });
      },
    );
  };

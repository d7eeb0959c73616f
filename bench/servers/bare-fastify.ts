// Baseline: a bare Fastify route that parses the same JSON body and answers a small JSON object.
import Fastify from 'fastify';

const app = Fastify({ logger: false, bodyLimit: 28 * 1024 * 1024 });
app.post('/v1/check', async (request) => {
  const body = request.body as { content: string };
  return { ok: true, length: body.content.length };
});
app.get('/', async () => ({ ok: true }));
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`READY ${new URL(address).port}\n`);

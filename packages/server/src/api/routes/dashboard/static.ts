import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm ci` builds the console (packages/console/dist), beside this package. */
export const DEFAULT_CONSOLE_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../../console/dist',
);

/**
 * The console's pages run only the service's own scripts and styles and talk only to the service: no inline
 * script, no other origin, no framing.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
}

/**
 * Serves the built console at /dashboard: fingerprinted assets (cached for a year) and, for every page address,
 * the one index.html (never cached, so a new build is picked up at once). `/` redirects here.
 */
export async function registerConsoleStatic(app: FastifyInstance, dir = DEFAULT_CONSOLE_DIR): Promise<void> {
  const indexFile = path.join(dir, 'index.html');
  const built = fs.existsSync(indexFile);
  const index = built ? fs.readFileSync(indexFile) : null;

  app.get('/', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/dashboard', 302),
  );

  const page = async (_request: unknown, reply: FastifyReply) => {
    securityHeaders(reply);
    reply.header('cache-control', 'no-store');
    if (!index) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built. Run "npm ci" (or "npm run build -w packages/console").\n');
    }
    return reply.type('text/html; charset=utf-8').send(index);
  };
  app.get('/dashboard', { config: { public: true }, schema: { hide: true } }, page);
  app.get('/dashboard/*', { config: { public: true }, schema: { hide: true } }, page);

  if (!built) return;
  await app.register(fastifyStatic, {
    root: path.join(dir, 'assets'),
    prefix: '/dashboard/assets/',
    decorateReply: false,
    index: false,
    immutable: true,
    maxAge: '365d',
    setHeaders: (res) => {
      res.setHeader('content-security-policy', CONSOLE_CSP);
      res.setHeader('x-content-type-options', 'nosniff');
    },
  });
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../../context.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Principal } from '../../../domain/principal.ts';
import {
  CSRF_HEADER,
  consolePrincipal,
  sessionCookie,
  setSessionCookie,
} from '../../plugins/console-session.ts';
import { errorResponses } from '../../schemas/common.ts';

const Session = Type.Object({
  csrfToken: Type.String({
    description: `Send it as ${CSRF_HEADER} on every state-changing console request`,
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  accountId: Type.String(),
  keyId: Type.String(),
  scopes: Type.Array(Type.String()),
  operator: Type.Boolean(),
});

const view = (principal: Principal, csrfToken: string, expiresAt: string) => ({
  csrfToken,
  expiresAt,
  accountId: principal.accountId,
  keyId: principal.keyId,
  scopes: [...principal.scopes],
  operator: principal.isOperator,
});

/**
 * Sign-in and sign-out of the web console. Not under /v1 (the console's own plumbing, not the public API): the
 * cookie set here then authenticates the console's calls to the ordinary /v1 routes.
 */
export const dashboardSessionRoutes =
  (ctx: AppContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/dashboard/session',
      {
        config: { public: true },
        schema: {
          hide: true,
          tags: ['console'],
          summary: 'Sign in to the console with an admin API key (sets an HttpOnly session cookie)',
          body: Type.Object({ apiKey: Type.String() }),
          response: { 201: Session, ...errorResponses(400, 401, 403, 415, 422) },
        },
      },
      async (request, reply) => {
        const body = (request.body ?? {}) as { apiKey?: unknown };
        const signIn = await ctx.consoleSessions.signIn(body.apiKey);
        const maxAge = Math.floor((Date.parse(signIn.expiresAt) - Date.now()) / 1000);
        setSessionCookie(ctx, request, reply, signIn.token, maxAge);
        reply.header('cache-control', 'no-store');
        return reply.code(201).send(view(signIn.principal, signIn.csrfToken, signIn.expiresAt));
      },
    );

    app.get(
      '/dashboard/session',
      {
        config: { public: true },
        schema: {
          hide: true,
          tags: ['console'],
          summary: 'The current console session (401 when signed out)',
          response: { 200: Session, ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        const token = sessionCookie(request);
        if (!token) throw new AppError('MISSING_API_KEY', 'Not signed in to the console');
        const result = await ctx.consoleSessions.authenticate(token);
        if (!result.ok) {
          setSessionCookie(ctx, request, reply, '', 0);
          throw new AppError(result.code, 'The console session has ended; sign in again');
        }
        reply.header('cache-control', 'no-store');
        return view(result.principal, result.csrfToken, result.expiresAt);
      },
    );

    app.delete(
      '/dashboard/session',
      {
        config: { public: true },
        schema: {
          hide: true,
          tags: ['console'],
          summary: `Sign out: ends the session (needs the ${CSRF_HEADER} header)`,
          response: { 200: Type.Object({ signedOut: Type.Boolean() }), ...errorResponses(401, 403) },
        },
      },
      async (request, reply) => {
        const token = sessionCookie(request);
        if (token) {
          // the CSRF check applies: a cross-site page must not be able to sign the user out either
          await consolePrincipal(ctx, request, token).catch((error: unknown) => {
            if (error instanceof AppError && error.code === 'INVALID_CSRF_TOKEN') throw error;
          });
          await ctx.consoleSessions.signOut(token);
        }
        setSessionCookie(ctx, request, reply, '', 0);
        return { signedOut: true };
      },
    );
  };

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { csrfMatches } from '../../domain/console-sessions.ts';
import { AppError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';

/** The console's session cookie; `__Host-` would force Secure, which plain-HTTP local installs cannot use. */
export const SESSION_COOKIE = 'verdict_session';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const SESSION_MESSAGES = {
  MISSING_API_KEY: 'Sign in to the console again',
  INVALID_API_KEY: 'The console session has ended; sign in again',
  EXPIRED_API_KEY: "The session's API key has expired; sign in again",
  REVOKED_API_KEY: "The session's API key has been revoked; sign in again",
} as const;

/**
 * The session token from the Cookie header, or undefined. One cookie of a fixed name, read by hand: a cookie
 * library would add a dependency for a ten-line parse.
 */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * Authenticates a cookie request: the session must be live and its key still valid, and a state-changing request
 * must carry the session's CSRF token (a cross-site page can make the browser send the cookie, never read the token).
 */
export async function consolePrincipal(
  ctx: AppContext,
  request: FastifyRequest,
  token: string,
): Promise<Principal> {
  const result = await ctx.consoleSessions.authenticate(token);
  if (!result.ok) throw new AppError(result.code, SESSION_MESSAGES[result.code]);
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(request.headers[CSRF_HEADER], result.csrfToken)) {
    throw new AppError(
      'INVALID_CSRF_TOKEN',
      `Console requests that change state need the ${CSRF_HEADER} header`,
    );
  }
  return result.principal;
}

/**
 * Sets (or, with maxAgeSeconds 0, clears) the session cookie; Secure whenever the request came over HTTPS or the
 * service's public URL is HTTPS (TLS ended at a proxy in front of it).
 */
export function setSessionCookie(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  token: string,
  maxAgeSeconds: number,
): void {
  const attributes = [
    `${SESSION_COOKIE}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
    ...(request.protocol === 'https' || ctx.config.publicUrl.startsWith('https:') ? ['Secure'] : []),
  ];
  reply.header('set-cookie', attributes.join('; '));
}

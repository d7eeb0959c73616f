import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { AppError } from '../../domain/errors.ts';
import type { Principal, Scope } from '../../domain/principal.ts';
import { consolePrincipal, sessionCookie } from './console-session.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes that need no API key (health, docs, evidence). */
    public?: boolean;
    /** POST routes that honour idempotency keys (decisions §5). */
    /** Idempotency keys apply; 'after-body': the handler claims the key once it has read a streamed body. */
    idempotent?: boolean | 'after-body';
    /** A field of the response shown only once (a secret): left out of the stored copy that replays answer with. */
    idempotentSecret?: string;
    /** the scope the route needs, checked before an idempotent replay (the domain checks it again) */
    scope?: Scope;
    /**
     * A drop-in compatibility route outside /v1/ (Perspective): authenticated like /v1/, and the key may also come
     * as `?key=` or `X-Goog-Api-Key`, as Google's clients send it (redacted from logs).
     */
    compatKey?: boolean;
  }
}

const MESSAGES = {
  MISSING_API_KEY: 'Send your key as "Authorization: Bearer <API_KEY>"',
  INVALID_API_KEY: 'The API key is not valid',
  EXPIRED_API_KEY: 'The API key has expired',
  REVOKED_API_KEY: 'The API key has been revoked',
} as const;

/** The presented key: undefined when none is (no header, or "Bearer" with nothing after it), '' when malformed. */
export function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header || /^\s*(?:Bearer\s*)?$/i.test(header)) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

/** Google's ways of passing a key: `?key=` or the X-Goog-Api-Key header. */
function googleKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-goog-api-key'];
  if (typeof header === 'string' && header.trim() !== '') return header.trim();
  const query = request.query as Record<string, unknown> | undefined;
  const key = query?.key;
  return typeof key === 'string' && key !== '' ? key : undefined;
}

/** Authenticates every non-public route before its body is read. */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    const { config } = request.routeOptions;
    if (config.public || !url || !(url.startsWith('/v1/') || config.compatKey)) return;
    const presented = bearer(request) ?? (config.compatKey ? googleKey(request) : undefined);
    // No key presented: the web console's session cookie stands in for the key it was opened with
    const session = presented === undefined ? sessionCookie(request) : undefined;
    if (session !== undefined) {
      request.principal = await consolePrincipal(ctx, request, session);
      return;
    }
    const result = await ctx.keys.verify(presented === '' ? 'invalid' : presented);
    if (!result.ok) {
      // RFC 6750: a missing key names the scheme; a key that does not work is an invalid_token
      const challenge =
        result.code === 'MISSING_API_KEY'
          ? 'Bearer realm="verdict"'
          : `Bearer realm="verdict", error="invalid_token", error_description="${MESSAGES[result.code]}"`;
      throw new AppError(result.code, MESSAGES[result.code], undefined, { 'www-authenticate': challenge });
    }
    request.principal = result.principal;
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('MISSING_API_KEY', MESSAGES.MISSING_API_KEY);
  return request.principal;
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleSessionRepository } from '../storage/repositories/console-sessions.ts';
import { AppError } from './errors.ts';
import type { KeyService, KeyVerification } from './keys.ts';
import type { Principal } from './principal.ts';

/** A console session lasts at most this long after sign-in, whatever the activity (then: sign in again). */
export const CONSOLE_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface ConsoleSignIn {
  /** the cookie value: shown to the browser only, stored only as its hash */
  token: string;
  csrfToken: string;
  expiresAt: string;
  principal: Principal;
}

export type ConsoleSessionCheck =
  | { ok: true; principal: Principal; csrfToken: string; expiresAt: string }
  | { ok: false; code: Exclude<KeyVerification, { ok: true }>['code'] };

/**
 * Web console sessions. Signing in exchanges an admin API key for an opaque session token held in an HttpOnly
 * cookie; the key itself stays on the server. Every request through a session re-checks the key, so revoking or
 * expiring the key ends its sessions at once.
 */
export class ConsoleSessionService {
  constructor(
    private readonly sessions: ConsoleSessionRepository,
    private readonly keys: KeyService,
    private readonly ttlMs = CONSOLE_SESSION_TTL_MS,
  ) {}

  async signIn(apiKey: unknown): Promise<ConsoleSignIn> {
    if (apiKey !== undefined && typeof apiKey !== 'string') {
      throw new AppError('INVALID_PARAMETER', 'apiKey must be a string', { field: 'apiKey' });
    }
    const result = await this.keys.verify(apiKey?.trim() || undefined);
    if (!result.ok) throw new AppError(result.code, SIGN_IN_MESSAGES[result.code]);
    if (!result.principal.scopes.has('admin')) {
      throw new AppError('INSUFFICIENT_PERMISSIONS', 'The console needs a key with the "admin" scope', {
        scope: 'admin',
      });
    }
    const now = new Date();
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + this.ttlMs).toISOString();
    await this.sessions.deleteExpired(now.toISOString());
    await this.sessions.insert({
      tokenHash: hashToken(token),
      keyId: result.principal.keyId,
      accountId: result.principal.accountId,
      csrfToken,
      createdAt: now.toISOString(),
      expiresAt,
    });
    return { token, csrfToken, expiresAt, principal: result.principal };
  }

  /** The principal of a session cookie, with the key's current state (revoked, expired) applied. */
  async authenticate(token: string): Promise<ConsoleSessionCheck> {
    if (token.length > 200) return { ok: false, code: 'INVALID_API_KEY' };
    const session = await this.sessions.findActive(hashToken(token), new Date().toISOString());
    if (!session) return { ok: false, code: 'INVALID_API_KEY' };
    const key = await this.keys.verifyHash(session.keyHash);
    if (!key.ok) {
      await this.sessions.delete(session.tokenHash);
      return key;
    }
    return { ok: true, principal: key.principal, csrfToken: session.csrfToken, expiresAt: session.expiresAt };
  }

  async signOut(token: string): Promise<void> {
    await this.sessions.delete(hashToken(token));
  }
}

export const SIGN_IN_MESSAGES = {
  MISSING_API_KEY: 'Enter an API key',
  INVALID_API_KEY: 'That API key is not valid',
  EXPIRED_API_KEY: 'That API key has expired',
  REVOKED_API_KEY: 'That API key has been revoked',
} as const;

/** Compares a presented CSRF token with the session's in constant time. */
export function csrfMatches(presented: unknown, expected: string): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

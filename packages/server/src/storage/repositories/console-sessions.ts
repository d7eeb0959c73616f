import type { Db } from '../database.ts';

export interface ConsoleSessionRecord {
  tokenHash: string;
  keyId: string;
  accountId: string;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

/** A live session with the hash of its key, so that the key's current state can be checked on every request. */
export type ActiveSession = ConsoleSessionRecord & { keyHash: string };

export class ConsoleSessionRepository {
  constructor(private readonly db: Db) {}

  async insert(session: ConsoleSessionRecord): Promise<void> {
    await this.db
      .insertInto('console_sessions')
      .values({
        token_hash: session.tokenHash,
        key_id: session.keyId,
        account_id: session.accountId,
        csrf_token: session.csrfToken,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async findActive(tokenHash: string, now: string): Promise<ActiveSession | null> {
    const row = await this.db
      .selectFrom('console_sessions')
      .innerJoin('api_keys', 'api_keys.id', 'console_sessions.key_id')
      .selectAll('console_sessions')
      .select('api_keys.key_hash')
      .where('console_sessions.token_hash', '=', tokenHash)
      .where('console_sessions.expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return null;
    return {
      tokenHash: row.token_hash,
      keyId: row.key_id,
      accountId: row.account_id,
      csrfToken: row.csrf_token,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      keyHash: row.key_hash,
    };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
  }

  /** Removes expired sessions; called on sign-in, so the table holds at most the sessions still alive. */
  async deleteExpired(now: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('expires_at', '<=', now).execute();
  }
}

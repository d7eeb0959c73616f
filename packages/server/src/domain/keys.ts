import { createHash, randomBytes } from 'node:crypto';
import type { AuditSink } from '../audit/types.ts';
import type { AccountRepository } from '../storage/repositories/accounts.ts';
import type {
  ApiKeyRecord,
  ApiKeyRepository,
  KeyRateLimit,
  KeyWithAccount,
} from '../storage/repositories/api-keys.ts';
import { AppError } from './errors.ts';
import { newId } from './ids.ts';
import { KeyCache } from './key-cache.ts';
import { type Principal, requireScope, SCOPES, type Scope } from './principal.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** "Last used" is kept to this resolution. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(): string {
  return `vk_${randomBytes(24).toString('base64url')}`;
}

export type KeyVerification =
  | { ok: true; principal: Principal }
  | { ok: false; code: 'MISSING_API_KEY' | 'INVALID_API_KEY' | 'EXPIRED_API_KEY' | 'REVOKED_API_KEY' };

export interface KeyInput {
  name?: string;
  scopes?: unknown;
  accountId?: string;
  expiresAt?: string | null;
  rateLimit?: KeyRateLimit | null;
}

/** Public view of a key: never the key or its hash. */
export function keyView(record: ApiKeyRecord) {
  return {
    id: record.id,
    prefix: record.prefix,
    last4: record.last4,
    name: record.name,
    scopes: record.scopes,
    accountId: record.accountId,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    lastUsedAt: record.lastUsedAt ?? null,
    rateLimit: record.rateLimit,
    createdAt: record.createdAt,
  };
}

function validateScopes(scopes: unknown): Scope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) {
    throw new AppError('MISSING_REQUIRED_FIELD', 'scopes must be a non-empty array', {
      field: 'scopes',
      allowed: SCOPES,
    });
  }
  for (const scope of scopes) {
    if (!(SCOPES as readonly unknown[]).includes(scope)) {
      throw new AppError('INVALID_SCOPE', `Unknown scope "${String(scope)}"`, { scope, allowed: SCOPES });
    }
  }
  return [...new Set(scopes as Scope[])];
}

function validateRateLimit(rateLimit: unknown): KeyRateLimit | null {
  if (rateLimit === undefined || rateLimit === null) return null;
  const r = rateLimit as Record<string, unknown>;
  const ok = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0 && (v as number) <= 1_000_000;
  if (typeof rateLimit !== 'object' || !ok(r.perMinute) || !ok(r.burstPerSecond)) {
    throw new AppError(
      'INVALID_PARAMETER',
      'rateLimit must be { perMinute, burstPerSecond } with positive integers',
      {
        field: 'rateLimit',
      },
    );
  }
  return { perMinute: r.perMinute as number, burstPerSecond: r.burstPerSecond as number };
}

export class KeyService {
  private readonly lookups = new Map<string, Promise<KeyWithAccount | null>>();
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly accounts: AccountRepository,
    /** Every create, change and revocation is an audit entry. */
    private readonly audit: AuditSink,
    /** Shared with AccountService, which clears it when an account changes. Off (0 ms) unless given. */
    readonly cache: KeyCache = new KeyCache(0),
  ) {}

  /** When this instance last wrote each key's last_used_at (ms). */
  private readonly lastNoted = new Map<string, number>();

  /**
   * Records that a key was used, at most once a minute per key (and instance) and without waiting for the write:
   * "last used" is for people reading the key list, not worth a write on every request's path.
   */
  private noteUse(keyId: string, at: number): void {
    const last = this.lastNoted.get(keyId);
    if (last !== undefined && at - last < LAST_USED_RESOLUTION_MS) return;
    if (this.lastNoted.size >= 10_000) this.lastNoted.clear();
    this.lastNoted.set(keyId, at);
    this.keys.touch(keyId, new Date(at).toISOString()).catch(() => {
      // a failed write (database going away at shutdown) only leaves "last used" a minute older
      this.lastNoted.delete(keyId);
    });
  }

  /** Verifies a presented key. Expected failures are values, not exceptions. */
  async verify(presented: string | undefined, now = new Date()): Promise<KeyVerification> {
    if (!presented) return { ok: false, code: 'MISSING_API_KEY' };
    if (presented.length > 200) return { ok: false, code: 'INVALID_API_KEY' };
    return this.verifyHash(hashKey(presented), now);
  }

  /**
   * Verifies a key by its stored hash (what a console session holds): the same cached lookup, so revoking or
   * expiring the key applies to its sessions as it does to the key itself.
   */
  async verifyHash(hash: string, now = new Date()): Promise<KeyVerification> {
    const at = now.getTime();
    let record = this.cache.get(hash, at) ?? null;
    if (!record) {
      // concurrent requests with the same key share one read (all of them miss together when an entry lapses)
      let lookup = this.lookups.get(hash);
      if (!lookup) {
        lookup = this.keys.findByHashWithAccount(hash).finally(() => this.lookups.delete(hash));
        this.lookups.set(hash, lookup);
      }
      record = await lookup;
      if (!record) return { ok: false, code: 'INVALID_API_KEY' };
      this.cache.set(hash, record, at);
    }
    if (record.revokedAt !== null) return { ok: false, code: 'REVOKED_API_KEY' };
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= at) {
      return { ok: false, code: 'EXPIRED_API_KEY' };
    }
    this.noteUse(record.id, at);
    return {
      ok: true,
      principal: {
        keyId: record.id,
        keyName: record.name,
        accountId: record.accountId,
        scopes: new Set(record.scopes as Scope[]),
        isOperator: record.isOperator,
        rateLimit: record.rateLimit,
        account: { monthlyQuota: record.monthlyQuota, trialEndsAt: record.trialEndsAt },
      },
    };
  }

  /** Creates a key; `key` is returned only here. With a principal, enforces who may create keys for whom. */
  async create(
    principal: Principal | null,
    input: KeyInput,
    presetKey?: string,
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    if (typeof input.name !== 'string' || input.name.trim() === '') {
      throw new AppError('MISSING_REQUIRED_FIELD', 'name is required', { field: 'name' });
    }
    const scopes = validateScopes(input.scopes);
    // a body is untyped JSON: an array or object here reached the database (500)
    if (input.accountId !== undefined && typeof input.accountId !== 'string') {
      throw new AppError('INVALID_PARAMETER', 'accountId must be a string', { field: 'accountId' });
    }
    const accountId = input.accountId ?? principal?.accountId;
    if (!accountId)
      throw new AppError('MISSING_REQUIRED_FIELD', 'accountId is required', { field: 'accountId' });
    if (principal) {
      requireScope(principal, 'admin');
      if (accountId !== principal.accountId && !principal.isOperator) {
        throw new AppError(
          'INSUFFICIENT_PERMISSIONS',
          "Only the operator's admin keys manage other accounts",
          {
            scope: 'admin',
          },
        );
      }
    }
    if (!(await this.accounts.get(accountId))) {
      throw new AppError('ACCOUNT_NOT_FOUND', `Account ${accountId} does not exist`, { accountId });
    }
    let expiresAt: string | null = null;
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
      const value: unknown = input.expiresAt;
      // an ISO 8601 date or date-time (with a zone if it has a time); Date.parse alone takes "March 7, 2030" or 12345
      const at = typeof value === 'string' && ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
      if (Number.isNaN(at)) {
        throw new AppError(
          'INVALID_PARAMETER',
          'expiresAt must be an ISO 8601 timestamp, e.g. 2030-03-07T00:00:00Z',
          {
            field: 'expiresAt',
          },
        );
      }
      // a key born expired is no use, and a sign of a mistake (a past date, a zero duration)
      if (at <= Date.now()) {
        throw new AppError('INVALID_PARAMETER', 'expiresAt must be in the future', {
          field: 'expiresAt',
          expiresAt: value,
        });
      }
      expiresAt = new Date(at).toISOString();
    }
    const key = presetKey ?? generateKey();
    const record: ApiKeyRecord = {
      id: newId('key'),
      accountId,
      name: input.name.trim().slice(0, 200),
      keyHash: hashKey(key),
      prefix: key.slice(0, 7),
      last4: key.slice(-4),
      scopes,
      expiresAt,
      revokedAt: null,
      rateLimit: validateRateLimit(input.rateLimit),
      createdAt: new Date().toISOString(),
    };
    await this.keys.insert(record);
    await this.audit.record(
      principal,
      'key.created',
      { type: 'key', id: record.id, accountId },
      { after: keyView(record) },
    );
    return { key, record };
  }

  async list(principal: Principal | null, accountId?: unknown): Promise<ApiKeyRecord[]> {
    // a repeated query parameter arrives as an array, which reached the database (500)
    if (accountId !== undefined && typeof accountId !== 'string') {
      throw new AppError('INVALID_PARAMETER', 'accountId must be given once', { field: 'accountId' });
    }
    if (principal) {
      requireScope(principal, 'admin');
      if (!principal.isOperator) return this.keys.list(principal.accountId);
    }
    return this.keys.list(accountId ?? null);
  }

  async revoke(principal: Principal | null, id: string): Promise<ApiKeyRecord> {
    const before = await this.get(principal, id);
    await this.keys.revoke(id, new Date().toISOString());
    this.cache.clear();
    const after = (await this.keys.get(id))!;
    await this.audit.record(
      principal,
      'key.revoked',
      { type: 'key', id, accountId: after.accountId },
      { before: keyView(before), after: keyView(after) },
    );
    return after;
  }

  /**
   * A key the caller may manage: an account's admin its own account's, the operator (or the CLI, `null`) any.
   * Others' keys are KEY_NOT_FOUND, so their existence does not leak.
   */
  async get(principal: Principal | null, id: string): Promise<ApiKeyRecord> {
    const record = await this.keys.get(id);
    if (principal) requireScope(principal, 'admin');
    if (!record || (principal && !principal.isOperator && record.accountId !== principal.accountId)) {
      throw new AppError('KEY_NOT_FOUND', `API key ${id} does not exist`, { id });
    }
    return record;
  }

  /** Changes a key's name or its rate-limit override (null = the service defaults). */
  async update(
    principal: Principal | null,
    id: string,
    input: { name?: unknown; rateLimit?: unknown },
  ): Promise<ApiKeyRecord> {
    const before = await this.get(principal, id);
    if (input.name !== undefined) {
      if (typeof input.name !== 'string' || input.name.trim() === '') {
        throw new AppError('INVALID_PARAMETER', 'name must be a non-empty string', { field: 'name' });
      }
    }
    await this.keys.update(id, {
      ...(input.name !== undefined && { name: (input.name as string).trim().slice(0, 200) }),
      ...(input.rateLimit !== undefined && { rateLimit: validateRateLimit(input.rateLimit) }),
    });
    this.cache.clear();
    const after = (await this.keys.get(id))!;
    await this.audit.record(
      principal,
      'key.updated',
      { type: 'key', id, accountId: after.accountId },
      { before: keyView(before), after: keyView(after) },
    );
    return after;
  }

  async findByKey(key: string): Promise<ApiKeyRecord | null> {
    return this.keys.findByHash(hashKey(key));
  }
}

import { queryParameter, queryWindow, rejectUnknownParameters } from '../domain/decision-filters.ts';
import { AppError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { type Principal, requireAnyScope } from '../domain/principal.ts';
import type { AuditQuery, AuditRepository } from './repository.ts';
import { type AuditEntry, type AuditSink, type AuditTarget, actorOf } from './types.ts';

const FILTERS = [
  'action',
  'actorKeyId',
  'targetType',
  'targetId',
  'from',
  'to',
  'cursor',
  'limit',
  'accountId',
];
const NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The audit log: who changed what, when, with the state before and after. Services record through `record` after
 * their change is committed; reading needs `audit:read` (or `admin`), and only the operator's admin keys may read
 * another account's log.
 */
export class AuditLog implements AuditSink {
  constructor(private readonly repo: AuditRepository) {}

  async record(
    by: Principal | null,
    action: string,
    target: AuditTarget,
    change: { before?: unknown; after?: unknown } = {},
  ): Promise<void> {
    const entry: AuditEntry = {
      id: newId('aud'),
      accountId: target.accountId,
      actor: actorOf(by),
      action,
      target: { type: target.type, id: target.id },
      before: change.before ?? null,
      after: change.after ?? null,
      createdAt: new Date().toISOString(),
    };
    await this.repo.append(entry);
  }

  /** `GET /v1/audit`: newest first, keyset-paginated by `cursor` (the last entry ID of the previous page). */
  async list(principal: Principal, query: Record<string, unknown>) {
    requireAnyScope(principal, 'audit:read', 'admin');
    rejectUnknownParameters(query, FILTERS);
    /** A filter naming an action, key, type, ID or cursor: those characters only. */
    const name = (field: string): string | undefined => {
      const v = queryParameter(query, field);
      if (v !== undefined && !NAME.test(v)) {
        throw new AppError(
          'INVALID_PARAMETER',
          `${field} must be 1–128 characters of A-Z, a-z, 0-9, _ . : -`,
          {
            field,
          },
        );
      }
      return v;
    };
    const limitText = queryParameter(query, 'limit');
    if (limitText !== undefined && (!/^\d{1,3}$/.test(limitText) || +limitText < 1 || +limitText > 200)) {
      throw new AppError('INVALID_PARAMETER', 'limit must be an integer from 1 to 200', { field: 'limit' });
    }
    let accountId = principal.accountId;
    const asked = name('accountId');
    if (asked !== undefined && asked !== accountId) {
      if (!principal.isOperator || !principal.scopes.has('admin')) {
        throw new AppError(
          'INSUFFICIENT_PERMISSIONS',
          "Only the operator's admin keys read other accounts' audit logs",
          { scope: 'admin', operator: true },
        );
      }
      accountId = asked;
    }
    const action = name('action');
    const actorKeyId = name('actorKeyId');
    const targetType = name('targetType');
    const targetId = name('targetId');
    const cursor = name('cursor');
    const q: AuditQuery = {
      accountId,
      limit: limitText === undefined ? 50 : Number(limitText),
      ...(action !== undefined && { action }),
      ...(actorKeyId !== undefined && { actorKeyId }),
      ...(targetType !== undefined && { targetType }),
      ...(targetId !== undefined && { targetId }),
      ...queryWindow(query),
      ...(cursor !== undefined && { before: cursor }),
    };
    const { entries, hasMore } = await this.repo.list(q);
    return { entries, hasMore, nextCursor: hasMore ? entries[entries.length - 1]!.id : null };
  }
}

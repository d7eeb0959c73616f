import type { Db } from '../storage/database.ts';
import { fromJson, toJson } from '../storage/json.ts';
import type { AuditLogTable } from '../storage/schema.ts';
import type { AuditActor, AuditEntry } from './types.ts';

export interface AuditQuery {
  accountId: string;
  /** An exact action (`key.revoked`) or a target type's every action (`key`). */
  action?: string;
  actorKeyId?: string;
  targetType?: string;
  targetId?: string;
  /** Inclusive / exclusive ISO 8601 UTC bounds on createdAt. */
  from?: string;
  to?: string;
  /** Entries older than this entry ID (IDs sort by time): the next page of a newest-first listing. */
  before?: string;
  limit: number;
}

/** A before/after state larger than this is stored as its size only: the log must not become a blob store. */
const MAX_STATE_BYTES = 256 * 1024;

function stateJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const json = toJson(value);
  return json.length > MAX_STATE_BYTES ? toJson({ omitted: true, bytes: json.length }) : json;
}

function toEntry(row: AuditLogTable): AuditEntry {
  const actor: AuditActor =
    row.actor_kind === 'key'
      ? { kind: 'key', keyId: row.actor_key_id!, name: row.actor_name, accountId: row.actor_account_id! }
      : { kind: 'operator', keyId: null, name: 'verdict CLI', accountId: null };
  return {
    id: row.id,
    accountId: row.account_id,
    actor,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    before: fromJson(row.before),
    after: fromJson(row.after),
    createdAt: row.created_at,
  };
}

/** Insert and read only: there is deliberately no update or delete (and the database refuses both). */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  async append(entry: AuditEntry): Promise<void> {
    await this.db
      .insertInto('audit_log')
      .values({
        id: entry.id,
        account_id: entry.accountId,
        actor_kind: entry.actor.kind,
        actor_key_id: entry.actor.keyId,
        actor_name: entry.actor.name,
        actor_account_id: entry.actor.accountId,
        action: entry.action,
        target_type: entry.target.type,
        target_id: entry.target.id,
        before: stateJson(entry.before),
        after: stateJson(entry.after),
        created_at: entry.createdAt,
      })
      .execute();
  }

  /** Newest first; one row more than `limit` is read to tell whether there is a next page. */
  async list(query: AuditQuery): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
    let q = this.db.selectFrom('audit_log').selectAll().where('account_id', '=', query.accountId);
    if (query.action !== undefined) {
      q = query.action.includes('.')
        ? q.where('action', '=', query.action)
        : q.where('target_type', '=', query.action);
    }
    if (query.actorKeyId !== undefined) q = q.where('actor_key_id', '=', query.actorKeyId);
    if (query.targetType !== undefined) q = q.where('target_type', '=', query.targetType);
    if (query.targetId !== undefined) q = q.where('target_id', '=', query.targetId);
    if (query.from !== undefined) q = q.where('created_at', '>=', query.from);
    if (query.to !== undefined) q = q.where('created_at', '<', query.to);
    if (query.before !== undefined) q = q.where('id', '<', query.before);
    const rows = await q
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    return { entries: rows.slice(0, query.limit).map(toEntry), hasMore: rows.length > query.limit };
  }
}

import type { Db } from '../database.ts';
import { fromJson, toJson } from '../json.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../schema.ts';

export interface WebhookRecord {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: string | null;
  enabled: boolean;
  disabledReason: string | null;
  /** Start of the current run of failed deliveries; null while healthy. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryRecord {
  id: string;
  accountId: string;
  webhookId: string | null;
  eventId: string;
  eventType: string;
  url: string;
  attempt: number;
  status: 'succeeded' | 'failed';
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  timestamp: string;
}

function toWebhook(row: WebhooksTable): WebhookRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    url: row.url,
    events: fromJson<string[]>(row.events),
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toDelivery(row: WebhookDeliveriesTable): DeliveryRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    url: row.url,
    attempt: row.attempt,
    status: row.status as DeliveryRecord['status'],
    responseCode: row.response_code,
    durationMs: row.duration_ms,
    error: row.error,
    timestamp: row.created_at,
  };
}

export class WebhookRepository {
  constructor(private readonly db: Db) {}

  async insert(w: WebhookRecord): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({
        id: w.id,
        account_id: w.accountId,
        url: w.url,
        events: toJson(w.events),
        description: w.description,
        secret: w.secret,
        previous_secret: w.previousSecret,
        previous_secret_expires_at: w.previousSecretExpiresAt,
        enabled: w.enabled ? 1 : 0,
        disabled_reason: w.disabledReason,
        failing_since: w.failingSince,
        created_at: w.createdAt,
        updated_at: w.updatedAt,
      })
      .execute();
  }

  async get(id: string, accountId?: string): Promise<WebhookRecord | null> {
    let query = this.db.selectFrom('webhooks').selectAll().where('id', '=', id);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row ? toWebhook(row) : null;
  }

  async list(accountId: string): Promise<WebhookRecord[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map(toWebhook);
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Enabled webhooks of these accounts (the relay filters by event type). */
  async enabledFor(executor: Db, accountIds: string[]): Promise<WebhookRecord[]> {
    if (accountIds.length === 0) return [];
    const rows = await executor
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', 'in', accountIds)
      .where('enabled', '=', 1)
      .execute();
    return rows.map(toWebhook);
  }

  async update(
    id: string,
    patch: Partial<
      Pick<
        WebhookRecord,
        | 'url'
        | 'events'
        | 'description'
        | 'enabled'
        | 'disabledReason'
        | 'failingSince'
        | 'secret'
        | 'previousSecret'
        | 'previousSecretExpiresAt'
      >
    > & { updatedAt: string },
  ): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({
        ...(patch.url !== undefined && { url: patch.url }),
        ...(patch.events !== undefined && { events: toJson(patch.events) }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.enabled !== undefined && { enabled: patch.enabled ? 1 : 0 }),
        ...(patch.disabledReason !== undefined && { disabled_reason: patch.disabledReason }),
        ...(patch.failingSince !== undefined && { failing_since: patch.failingSince }),
        ...(patch.secret !== undefined && { secret: patch.secret }),
        ...(patch.previousSecret !== undefined && { previous_secret: patch.previousSecret }),
        ...(patch.previousSecretExpiresAt !== undefined && {
          previous_secret_expires_at: patch.previousSecretExpiresAt,
        }),
        updated_at: patch.updatedAt,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Records a failed delivery; returns the start of the failing run (set now if it was healthy). */
  async markFailing(id: string, at: string): Promise<string> {
    await this.db
      .updateTable('webhooks')
      .set({ failing_since: at })
      .where('id', '=', id)
      .where('failing_since', 'is', null)
      .execute();
    const row = await this.db
      .selectFrom('webhooks')
      .select('failing_since')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.failing_since ?? at;
  }

  async markHealthy(id: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ failing_since: null })
      .where('id', '=', id)
      .where('failing_since', 'is not', null)
      .execute();
  }

  async disable(id: string, reason: string, at: string): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: reason, updated_at: at })
      .where('id', '=', id)
      .where('enabled', '=', 1)
      .execute();
  }

  async delete(id: string, accountId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('webhooks')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async insertDelivery(d: DeliveryRecord): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        id: d.id,
        account_id: d.accountId,
        webhook_id: d.webhookId,
        event_id: d.eventId,
        event_type: d.eventType,
        url: d.url,
        attempt: d.attempt,
        status: d.status,
        response_code: d.responseCode,
        duration_ms: d.durationMs,
        error: d.error,
        created_at: d.timestamp,
      })
      .execute();
  }

  /** Newest first; delivery IDs are time-sortable. */
  async deliveries(webhookId: string, limit: number, offset = 0): Promise<DeliveryRecord[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toDelivery);
  }

  async deleteDeliveries(webhookId: string): Promise<void> {
    await this.db.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute();
  }
}

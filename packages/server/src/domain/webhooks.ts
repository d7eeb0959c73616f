import type { AuditSink } from '../audit/types.ts';
import { redactUrl } from '../media/safe-fetch.ts';
import { reviewSampleData } from '../review/views.ts';
import type { DeliveryRecord, WebhookRecord, WebhookRepository } from '../storage/repositories/webhooks.ts';
import { newSigningSecret } from './accounts.ts';
import { requireField } from './content.ts';
import { AppError } from './errors.ts';
import type { EventSubscriptions } from './event-subscriptions.ts';
import { buildEvent, type EventType, isEventType } from './events.ts';
import { newId } from './ids.ts';
import { type Principal, requireScope } from './principal.ts';
import type { WebhookDeliverer } from './webhook-delivery.ts';
import { activeSecrets, ROTATION_OVERLAP_MS } from './webhook-signature.ts';
import { assertWebhookReachable, parseWebhookUrl } from './webhook-url.ts';

const MAX_DESCRIPTION = 500;
const MAX_WEBHOOKS_PER_ACCOUNT = 50;

export interface WebhookInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  enabled?: unknown;
}

/** The webhook of interface §2.5; the secret only when it was just created or rotated. */
export function webhookView(w: WebhookRecord, withSecret = false) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
    ...(withSecret && { secret: w.secret }),
  };
}

/** A delivery log entry of decisions §6.5. */
export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    attempt: d.attempt,
    timestamp: d.timestamp,
    status: d.status,
    responseCode: d.responseCode,
    durationMs: d.durationMs,
    error: d.error,
  };
}

function validateEvents(value: unknown): EventType[] {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    throw new AppError('MISSING_REQUIRED_FIELD', 'events is required and must name at least one event type', {
      field: 'events',
    });
  }
  if (!Array.isArray(value)) {
    throw new AppError('INVALID_PARAMETER', 'events must be an array of event types', { field: 'events' });
  }
  for (const [index, type] of value.entries()) {
    if (!isEventType(type)) {
      throw new AppError('INVALID_EVENT_TYPE', `Unknown event type ${JSON.stringify(type)}`, {
        field: `events[${index}]`,
        allowed: [
          'decision.created',
          'decision.flagged',
          'decision.blocked',
          'moderation.completed',
          'moderation.failed',
        ],
      });
    }
  }
  return [...new Set(value as EventType[])];
}

function validateDescription(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_DESCRIPTION) {
    throw new AppError(
      'INVALID_PARAMETER',
      `description must be a string of at most ${MAX_DESCRIPTION} characters`,
      {
        field: 'description',
      },
    );
  }
  return value;
}

/** Sample data for test deliveries, shaped like the real events. */
function sampleData(type: EventType): Record<string, unknown> {
  const now = new Date().toISOString();
  if (type === 'decision.reviewed' || type === 'decision.overturned' || type === 'appeal.resolved')
    return reviewSampleData(type, now);
  if (type === 'moderation.completed' || type === 'moderation.failed') {
    const batchId = 'bat_test';
    // shaped like the real events (BatchService.process and fail)
    if (type === 'moderation.failed') {
      return {
        id: batchId,
        batchId,
        status: 'failed',
        totalItems: 1,
        processedItems: 0,
        error: { code: 'INTERNAL_ERROR', message: 'This is a test event' },
        test: true,
      };
    }
    return {
      id: batchId,
      batchId,
      status: 'completed',
      totalItems: 1,
      items: [{ id: 'item-1', safe: true, flagged: false, action: 'allow', decisionId: 'dec_test' }],
      test: true,
    };
  }
  return {
    id: 'dec_test',
    decisionId: 'dec_test',
    content: 'This is a test event',
    contentType: 'text',
    safe: type === 'decision.created',
    flagged: type !== 'decision.created',
    action: type === 'decision.blocked' ? 'block' : type === 'decision.flagged' ? 'flag' : 'allow',
    categories: [],
    policyId: 'default',
    timestamp: now,
    test: true,
  };
}

/** Webhook endpoints of an account (interface §4.9, decisions §6). */
export class WebhookService {
  constructor(
    private readonly repository: WebhookRepository,
    private readonly deliverer: WebhookDeliverer,
    /** Webhook creations, changes, deletions and secret rotations are audit entries (never the secrets). */
    private readonly audit: AuditSink,
    /** Cleared on every change, so that this instance records the events a new or changed webhook wants at once. */
    private readonly subscriptions?: EventSubscriptions,
  ) {}

  private async find(principal: Principal, id: string): Promise<WebhookRecord> {
    const webhook = await this.repository.get(id, principal.accountId);
    if (!webhook) throw new AppError('WEBHOOK_NOT_FOUND', `Webhook ${id} does not exist`, { webhookId: id });
    return webhook;
  }

  private async checkUrl(value: unknown): Promise<string> {
    const url = parseWebhookUrl(value, 'url');
    const { allowPrivate, ca } = this.deliverer.options;
    await assertWebhookReachable(url, { allowPrivate, ...(ca !== undefined && { ca }) }, 'url');
    return url.toString();
  }

  async create(principal: Principal, input: WebhookInput): Promise<WebhookRecord> {
    requireScope(principal, 'webhooks:write');
    // Cheap checks first; the TLS connection check last, so a bad field never costs a connection.
    parseWebhookUrl(input.url, 'url');
    const events = validateEvents(input.events);
    const description = validateDescription(input.description);
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
      throw new AppError('INVALID_PARAMETER', 'enabled must be a boolean', { field: 'enabled' });
    }
    if ((await this.repository.count(principal.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw new AppError(
        'INVALID_PARAMETER',
        `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks`,
        {
          max: MAX_WEBHOOKS_PER_ACCOUNT,
        },
      );
    }
    const url = await this.checkUrl(input.url);
    const now = new Date().toISOString();
    const webhook: WebhookRecord = {
      id: newId('whk'),
      accountId: principal.accountId,
      url,
      events,
      description,
      secret: newSigningSecret(),
      previousSecret: null,
      previousSecretExpiresAt: null,
      enabled: input.enabled !== false,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insert(webhook);
    this.subscriptions?.clear();
    await this.audited(principal, 'webhook.created', null, webhook);
    return webhook;
  }

  async list(principal: Principal): Promise<WebhookRecord[]> {
    requireScope(principal, 'webhooks:read');
    return this.repository.list(principal.accountId);
  }

  async get(principal: Principal, id: string): Promise<WebhookRecord> {
    requireScope(principal, 'webhooks:read');
    return this.find(principal, id);
  }

  async update(principal: Principal, id: string, input: WebhookInput): Promise<WebhookRecord> {
    requireScope(principal, 'webhooks:write');
    const webhook = await this.find(principal, id);
    if (input.url === null)
      throw new AppError('INVALID_WEBHOOK_URL', 'url cannot be removed', { field: 'url' });
    if (input.url !== undefined) parseWebhookUrl(input.url, 'url');
    const events = input.events === undefined ? undefined : validateEvents(input.events);
    const description = input.description === undefined ? undefined : validateDescription(input.description);
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
      throw new AppError('INVALID_PARAMETER', 'enabled must be a boolean', { field: 'enabled' });
    }
    const url =
      input.url === undefined || input.url === webhook.url ? undefined : await this.checkUrl(input.url);
    const enabled = input.enabled as boolean | undefined;
    await this.repository.update(id, {
      ...(url !== undefined && { url }),
      ...(events !== undefined && { events }),
      ...(description !== undefined && { description }),
      ...(enabled !== undefined && { enabled }),
      // Re-enabling starts afresh: the reason and the failing run are forgotten.
      ...(enabled === true && { disabledReason: null, failingSince: null }),
      ...(enabled === false && { disabledReason: 'Disabled by the API' }),
      updatedAt: new Date().toISOString(),
    });
    this.subscriptions?.clear();
    const after = await this.find(principal, id);
    await this.audited(principal, 'webhook.updated', webhook, after);
    return after;
  }

  private audited(
    principal: Principal,
    action: string,
    before: WebhookRecord | null,
    after: WebhookRecord | null,
  ): Promise<void> {
    const id = (after ?? before)!.id;
    return this.audit.record(
      principal,
      action,
      { type: 'webhook', id, accountId: principal.accountId },
      { before: before && webhookView(before), after: after && webhookView(after) },
    );
  }

  async delete(principal: Principal, id: string): Promise<void> {
    requireScope(principal, 'webhooks:write');
    const before = await this.find(principal, id);
    await this.repository.delete(id, principal.accountId);
    this.subscriptions?.clear();
    await this.repository.deleteDeliveries(id);
    await this.audited(principal, 'webhook.deleted', before, null);
  }

  /** New secret; the previous one keeps signing for 24 h (one `v1=` each). */
  async rotateSecret(principal: Principal, id: string): Promise<WebhookRecord> {
    requireScope(principal, 'webhooks:write');
    const webhook = await this.find(principal, id);
    const now = Date.now();
    await this.repository.update(id, {
      secret: newSigningSecret(),
      previousSecret: webhook.secret,
      previousSecretExpiresAt: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      updatedAt: new Date(now).toISOString(),
    });
    const after = await this.find(principal, id);
    await this.audited(principal, 'webhook.secret_rotated', webhook, after);
    return after;
  }

  /** Sends one signed event synchronously (decisions §6.7); logged like any delivery; the endpoint state is untouched. */
  async test(principal: Principal, id: string, body: { eventType?: unknown }) {
    requireScope(principal, 'webhooks:write');
    const webhook = await this.find(principal, id);
    requireField(body.eventType, 'eventType');
    const type = body.eventType;
    if (!isEventType(type)) {
      throw new AppError('INVALID_EVENT_TYPE', `Unknown event type ${JSON.stringify(type)}`, {
        field: 'eventType',
      });
    }
    const event = buildEvent(principal.accountId, type, sampleData(type));
    const result = await this.deliverer.send(webhook.url, event, activeSecrets(webhook));
    await this.repository.insertDelivery({
      id: newId('dlv'),
      accountId: principal.accountId,
      webhookId: webhook.id,
      eventId: event.id,
      eventType: type,
      url: redactUrl(webhook.url),
      attempt: 1,
      status: result.success ? 'succeeded' : 'failed',
      responseCode: result.responseCode,
      durationMs: result.durationMs,
      error: result.error,
      timestamp: new Date().toISOString(),
    });
    return {
      success: result.success,
      responseCode: result.responseCode,
      durationMs: result.durationMs,
      eventId: event.id,
      ...(result.error && { error: result.error }),
    };
  }

  /** A page of the delivery log, newest first. */
  async deliveries(principal: Principal, id: string, limit: number, offset: number) {
    requireScope(principal, 'webhooks:read');
    await this.find(principal, id);
    const rows = await this.repository.deliveries(id, limit + 1, offset);
    return { deliveries: rows.slice(0, limit), hasMore: rows.length > limit };
  }
}

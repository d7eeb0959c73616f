import type { AuditSink } from './audit/types.ts';
import { type Config, extraCa } from './config.ts';
import { BatchService } from './domain/batches.ts';
import type { CheckService } from './domain/checks.ts';
import type { DecisionStore } from './domain/decisions.ts';
import { EventSubscriptions } from './domain/event-subscriptions.ts';
import { EventOutbox } from './domain/events.ts';
import type { PolicyService } from './domain/policies/service.ts';
import type { UsageService } from './domain/usage.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, WebhookDeliverer } from './domain/webhook-delivery.ts';
import { WebhookService } from './domain/webhooks.ts';
import { DatabaseQueue } from './jobs/database-queue.ts';
import { OutboxRelay } from './jobs/outbox-relay.ts';
import type { Queue } from './jobs/queue.ts';
import type { DatabaseHandle } from './storage/database.ts';
import type { AccountRepository } from './storage/repositories/accounts.ts';
import { BatchRepository } from './storage/repositories/batches.ts';
import { EventRepository } from './storage/repositories/events.ts';
import { WebhookRepository } from './storage/repositories/webhooks.ts';

/** The queue, the event outbox, webhooks and batches: built once by `createContext` (the composition root). */
export interface EventsContext {
  queue: Queue;
  events: EventOutbox;
  webhooks: WebhookService;
  webhookDeliverer: WebhookDeliverer;
  batches: BatchService;
  outboxRelay: OutboxRelay;
}

/** The configured queue: BullMQ on Redis when REDIS_URL is set (loaded only then: ~230 modules), else the database. */
export async function createQueue(config: Config, database: DatabaseHandle): Promise<Queue> {
  if (!config.redisUrl)
    return new DatabaseQueue(database.db, database.engine, { leaseMs: config.jobLeaseMs });
  const { RedisQueue } = await import('./jobs/redis-queue.ts');
  return new RedisQueue({ url: config.redisUrl, leaseMs: config.jobLeaseMs });
}

export function createEventsContext(
  config: Config,
  database: DatabaseHandle,
  deps: {
    accounts: AccountRepository;
    policies: PolicyService;
    checks: CheckService;
    decisionStore: DecisionStore;
    usage: UsageService;
    audit: AuditSink;
    /** See createQueue. */
    queue: Queue;
  },
): EventsContext {
  const { db, engine } = database;
  const { queue } = deps;
  const eventRepository = new EventRepository(db);
  const webhookRepository = new WebhookRepository(db);
  const subscriptions = new EventSubscriptions(webhookRepository, config.cacheMs ?? 500);
  const events = new EventOutbox(eventRepository, subscriptions);
  const ca = extraCa(config);
  const webhookDeliverer = new WebhookDeliverer(webhookRepository, eventRepository, deps.accounts, {
    allowPrivate: config.allowPrivateUrls,
    ...(ca !== undefined && { ca }),
    retryScheduleMs: config.webhookRetrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
  });
  const batches = new BatchService(
    db,
    new BatchRepository(db),
    deps.policies,
    deps.checks,
    deps.decisionStore,
    events,
    queue,
    deps.usage,
    { allowPrivateUrls: config.allowPrivateUrls },
  );
  // Outbox: events and batch progress are written in the same transaction as the decisions they belong to.
  deps.decisionStore.addSideWrite(events.decisionSideWrite);
  deps.decisionStore.addSideWrite(batches.decisionSideWrite);
  return {
    queue,
    events,
    webhooks: new WebhookService(webhookRepository, webhookDeliverer, deps.audit, subscriptions),
    webhookDeliverer,
    batches,
    outboxRelay: new OutboxRelay(
      db,
      engine,
      eventRepository,
      webhookRepository,
      queue,
      webhookDeliverer.maxAttempts,
    ),
  };
}

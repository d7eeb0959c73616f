import { DELIVER_TASK, type DeliveryJobData } from '../domain/webhook-delivery.ts';
import type { Db } from '../storage/database.ts';
import type { EventRepository } from '../storage/repositories/events.ts';
import type { WebhookRepository } from '../storage/repositories/webhooks.ts';
import { type JobSpec, PollSleep, type Queue } from './queue.ts';

const BATCH = 200;

/**
 * Moves recorded events from the outbox into delivery jobs: one per subscribed enabled webhook, plus one for an
 * event's ad-hoc target URL. Job IDs are derived from the event and destination, so a relay that dies between
 * enqueueing and marking the events dispatched only re-enqueues no-ops. On PostgreSQL, concurrent relays (several
 * worker processes) skip each other's locked rows.
 */
export class OutboxRelay {
  private stopped = true;
  private loop: Promise<void> | null = null;
  private readonly poll = new PollSleep();
  private pending = false;

  constructor(
    private readonly db: Db,
    private readonly engine: 'sqlite' | 'postgres',
    private readonly events: EventRepository,
    private readonly webhooks: WebhookRepository,
    private readonly queue: Queue,
    private readonly maxAttempts: number,
  ) {}

  /** Fans out up to one page of events; returns how many events it handled. */
  async dispatchOnce(limit = BATCH): Promise<number> {
    const run = async (executor: Db) => {
      const events = await this.events.pending(executor, limit, this.engine);
      if (events.length === 0) return 0;
      const hooks = await this.webhooks.enabledFor(executor, [...new Set(events.map((e) => e.accountId))]);
      const jobs: JobSpec<DeliveryJobData>[] = [];
      for (const event of events) {
        if (event.targetUrl) {
          jobs.push(this.job({ eventId: event.id, webhookId: null }, `dlv.${event.id}.url`));
        }
        for (const hook of hooks) {
          if (hook.accountId === event.accountId && hook.events.includes(event.type)) {
            jobs.push(this.job({ eventId: event.id, webhookId: hook.id }, `dlv.${event.id}.${hook.id}`));
          }
        }
      }
      await this.queue.enqueue(jobs);
      await this.events.markDispatched(
        executor,
        events.map((e) => e.id),
        new Date().toISOString(),
      );
      return events.length;
    };
    // SQLite has one connection: a transaction around the enqueue would deadlock the embedded queue's insert.
    return this.engine === 'postgres' ? this.db.transaction().execute(run) : run(this.db);
  }

  private job(data: DeliveryJobData, id: string): JobSpec<DeliveryJobData> {
    return { name: DELIVER_TASK, data, id, maxAttempts: this.maxAttempts };
  }

  start(options: { pollMs?: number; onError?(error: unknown): void } = {}): void {
    if (!this.stopped) return;
    this.stopped = false;
    const pollMs = options.pollMs ?? 200;
    this.loop = (async () => {
      while (!this.stopped) {
        this.pending = false;
        let handled = 0;
        try {
          handled = await this.dispatchOnce();
        } catch (error) {
          options.onError?.(error);
        }
        if (this.stopped) break;
        if (handled === BATCH || this.pending) continue;
        await this.poll.sleep(pollMs);
      }
    })();
  }

  wake(): void {
    this.pending = true;
    this.poll.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.poll.wake();
    await this.loop;
  }
}
